# SPDX-License-Identifier: ISC
# A multiprocessing.Pool of N workers (4 by default) squares 0..999; prints "N workers: SUM".
import multiprocessing
import sys


def square(x):
    return x * x


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    with multiprocessing.Pool(n) as pool:
        print(f"{n} workers: {sum(pool.map(square, range(1000)))}")
