// A header-heavy C++ translation unit: the compile the benchmarks profile.
#include <algorithm>
#include <functional>
#include <future>
#include <iostream>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <unordered_map>
#include <variant>
#include <vector>

template <int N> struct Fib {
	static constexpr long value = Fib<N - 1>::value + Fib<N - 2>::value;
};
template <> struct Fib<0> {
	static constexpr long value = 0;
};
template <> struct Fib<1> {
	static constexpr long value = 1;
};

int main()
{
	std::map<std::string, std::vector<std::variant<int, double, std::string>>> m;
	std::regex re("([a-z]+)@([a-z]+)\\.com");
	std::unordered_map<int, std::function<int(int)>> fns;
	for (int i = 0; i < 10; i++)
		fns[i] = [i](int x) { return x * i; };
	std::ostringstream os;
	os << Fib<40>::value << std::regex_match("a@b.com", re);
	auto f = std::async(std::launch::async, [] { return 42; });
	std::set<std::string> s{ "x", "y" };
	return (int)(os.str().size() + m.size() + f.get() + s.size());
}
