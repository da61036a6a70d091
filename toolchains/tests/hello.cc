#include <array>
#include <cstdio>
int main() { std::array<int, 4> a{1, 2, 3, 4}; int s = 0; for (int v : a) s += v; std::printf("%d\n", s); return s == 10 ? 0 : 1; }
