// SPDX-License-Identifier: ISC
// Starts N Java threads (8 by default) that each add up a range, joins them, prints "N threads: SUM".
public final class JThreads {
	public static void main(String[] args) throws InterruptedException {
		int n = args.length > 0 ? Integer.parseInt(args[0]) : 8;
		long[] part = new long[n];
		Thread[] threads = new Thread[n];

		for (int i = 0; i < n; i++) {
			final int me = i;
			threads[i] = new Thread(() -> {
				for (int k = 0; k < 100000; k++)
					part[me] += me;
			});
			threads[i].start();
		}
		long sum = 0;
		for (int i = 0; i < n; i++) {
			threads[i].join();
			sum += part[i];
		}
		System.out.println(n + " threads: " + sum);
	}
}
