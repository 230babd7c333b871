// SPDX-License-Identifier: ISC
// Starts N std::threads (8 by default) that each add up a range, joins them, prints "N threads: SUM".
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <thread>
#include <vector>

int main(int argc, char **argv)
{
	int n = argc > 1 ? std::atoi(argv[1]) : 8;
	std::vector<long> part(static_cast<size_t>(n), 0);
	std::vector<std::thread> threads;

	for (int i = 0; i < n; i++)
		threads.emplace_back([&part, i] {
			for (long k = 0; k < 100000; k++)
				part[static_cast<size_t>(i)] += i;
		});
	for (auto &t : threads)
		t.join();
	std::printf("%d threads: %ld\n", n, std::accumulate(part.begin(), part.end(), 0L));
	return 0;
}
