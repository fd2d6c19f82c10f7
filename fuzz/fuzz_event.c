/*
 * fuzz_event: one record through ev_decode (event), under an attr set the
 * input chooses, so every sample_type subset is reachable. Input layout
 * (little-endian):
 *
 *    0  u64 sample_type (bits this decoder does not know are dropped)
 *    8  u64 read_format
 *   16  u64 branch_sample_type
 *   24  u64 sample_regs_user
 *   32  u64 sample_regs_intr
 *   40  u8  flags: 1 sample_id_all; 2 a second attr (ids 1 and 2; it
 *           differs in read_format and registers); 4 keep the record's own
 *           size field (by default it is set to the record's length, so
 *           decoding gets past the size check); 8 decode even if
 *           ev_attrs_finish refused the set, as the perf.data reader does
 *           for records queued before a bad ATTR record
 *   48  the record, header included, as an exact-size heap copy
 *
 * Checked beyond "no crash" (ASan sees reads past the copy): a decoded
 * event's parts lie inside the record (fuzz_touch_event), its header
 * fields are the record's, and a sample has its attr.
 */
#include "base/err.h"
#include "event/event.h"
#include "fuzz/fuzz.h"

#define PREFIX 48

static void attrs_build(struct ev_attrs *a, const uint8_t *in, bool two)
{
	struct perf_event_attr attr;
	uint64_t id1 = 1, id2 = 2;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.sample_type = fuzz_u64(in, 8) & EV_SAMPLE_KNOWN_MASK;
	attr.read_format = fuzz_u64(in + 8, 8);
	attr.branch_sample_type = fuzz_u64(in + 16, 8);
	attr.sample_regs_user = fuzz_u64(in + 24, 8);
	attr.sample_regs_intr = fuzz_u64(in + 32, 8);
	attr.sample_id_all = in[40] & 1;
	ev_attrs_init(a);
	ev_attrs_add(a, &attr, sizeof(attr), &id1, 1);
	if (two) {
		attr.read_format = ~attr.read_format;
		attr.sample_regs_user = ~attr.sample_regs_user;
		attr.sample_regs_intr >>= 1;
		attr.type = PERF_TYPE_HARDWARE;
		ev_attrs_add(a, &attr, sizeof(attr), &id2, 1);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ev_attrs attrs;
	struct event ev;

	fuzz_quiet();
	if (size < PREFIX)
		return 0;
	bool two = data[40] & 2;
	attrs_build(&attrs, data, two);
	if (ev_attrs_finish(&attrs) != 0 && !(data[40] & 8)) {
		/* Two attrs must agree on where the id sits; fall back to one. */
		ev_attrs_release(&attrs);
		if (!two)
			return 0;
		attrs_build(&attrs, data, false);
		if (ev_attrs_finish(&attrs) != 0) {
			ev_attrs_release(&attrs);
			return 0;
		}
	}

	size_t len = size - PREFIX;
	uint8_t *rec = fuzz_copy(data + PREFIX, len);
	if (!(data[40] & 4) && len >= 8 && len <= UINT16_MAX) {
		rec[6] = (uint8_t)len;
		rec[7] = (uint8_t)(len >> 8);
	}
	if (ev_decode(&ev, rec, len, 0x1000, &attrs) == 0) {
		volatile uint64_t sink = fuzz_touch_event(&ev);
		(void)sink;
		fuzz_check(ev.bytes == rec && ev.size == len && ev.offset == 0x1000);
		fuzz_check(ev.type == fuzz_u64(rec, 4));
		fuzz_check(ev_type_name(ev.type) != NULL);
		if (ev.type == PERF_RECORD_SAMPLE)
			fuzz_check(ev.attr != NULL);
	} else {
		fuzz_check(err_last()->msg[0] != '\0');
	}
	free(rec);
	ev_attrs_release(&attrs);
	return 0;
}
