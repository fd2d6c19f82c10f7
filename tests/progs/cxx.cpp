// cxx: C++ names for the demangling test: namespaces, templates, a lambda,
// operator(), an anonymous namespace. Built -O1 with frame pointers and no
// inlining so every function is its own frame. Usage: cxx [SECONDS]
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <vector>

static volatile uint64_t sink;

namespace render {
template <typename T> struct Shader {
	__attribute__((noinline)) T operator()(T x) const
	{
		for (int i = 0; i < 200000; i++)
			x = x * 6364136223846793005ULL + 1;
		return x;
	}
};

namespace {
__attribute__((noinline)) uint64_t blend(const std::vector<uint64_t> &v)
{
	uint64_t acc = 0;
	for (auto x : v)
		acc += Shader<uint64_t>()(x);
	return acc;
}
} // namespace

__attribute__((noinline)) uint64_t draw_frame(int n)
{
	std::vector<uint64_t> v(n, 7);
	return blend(v);
}
} // namespace render

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0;
	auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(secs);
	while (std::chrono::steady_clock::now() < end)
		sink = sink + render::draw_frame(4);
	return 0;
}
