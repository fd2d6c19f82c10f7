/* lines: the text lines -V, -L and -F hand to the CLI (probe, L3). */
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "probe/probe.h"

void probe_lines_add(char ***v, size_t *n, char *s)
{
	XREALLOC_ARRAY(*v, *n + 1);
	(*v)[(*n)++] = s;
}

void probe_lines_free(char **lines, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void probe_lines_sort_unique(char **v, size_t *n)
{
	if (*n)
		qsort(v, *n, sizeof(char *), cmp_str);
	size_t k = 0;
	for (size_t i = 0; i < *n; i++) {
		if (k && !strcmp(v[k - 1], v[i]))
			free(v[i]);
		else
			v[k++] = v[i];
	}
	*n = k;
}

void probe_lines_sort_vars(char **v, size_t first, size_t n)
{
	for (size_t i = first + 1; i < n; i++)
		for (size_t j = i; j > first; j--) {
			if (strcmp(strrchr(v[j - 1], '\t'), strrchr(v[j], '\t')) <= 0)
				break;
			char *tmp = v[j - 1];
			v[j - 1] = v[j];
			v[j] = tmp;
		}
}
