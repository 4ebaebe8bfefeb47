// Generator of libstdcxx_orders.txt (g++ 12.2, libstdc++, -O2):
//   g++ -O2 -o orders libstdcxx_orders.cc && ./orders > libstdcxx_orders.txt
// Prints libstdc++'s std::sort (decreasing, by index) and priority_queue
// pop orders for fixed inputs with ties.
#include <algorithm>
#include <cstdio>
#include <numeric>
#include <queue>
#include <vector>
struct E { int id; float score; };
struct C { bool operator()(const E& a, const E& b) const { return a.score < b.score; } };
int main() {
  unsigned s = 12345;
  auto rnd = [&]() { s = s * 1103515245u + 12345u; return (s >> 16) & 0x7fff; };
  int sizes[] = {5, 16, 17, 20, 33, 64, 200};
  for (int n : sizes) {
    std::vector<float> v(n);
    for (auto& x : v) x = float(rnd() % 4);
    std::vector<int> idx(n);
    std::iota(idx.begin(), idx.end(), 0);
    std::sort(idx.begin(), idx.end(), [&](int i, int j) { return v[i] > v[j]; });
    printf("sort %d vals", n);
    for (float x : v) printf(" %g", x);
    printf(" order");
    for (int i : idx) printf(" %d", i);
    printf("\n");
    std::priority_queue<E, std::vector<E>, C> q;
    for (int i = 0; i < n; i++) q.push(E{i, v[i]});
    printf("heap %d order", n);
    while (!q.empty()) { printf(" %d", q.top().id); q.pop(); }
    printf("\n");
  }
}
