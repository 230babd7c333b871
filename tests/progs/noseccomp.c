// SPDX-License-Identifier: ISC
// noseccomp CMD [ARGS...]: run CMD under a filter that makes every load of a
// filter (seccomp(2) with a program) fail with EPERM, and allows everything
// else, the probes of what the kernel supports included: a filter that can
// be built but not loaded here (check-try.sh).
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sock_filter insns[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_seccomp, 0, 7),
	    /* seccomp(SECCOMP_SET_MODE_FILTER, flags, prog): a NULL prog is
	     * libseccomp's probe of a flag (EFAULT), not a load; the other
	     * operations ask what the kernel supports. */
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SECCOMP_SET_MODE_FILTER, 0, 5),
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[2])),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 2),
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[2]) + 4),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {.len = sizeof insns / sizeof insns[0], .filter = insns};

	if (argc < 2) {
		fprintf(stderr, "usage: noseccomp CMD [ARGS...]\n");
		return 2;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0) {
		perror("noseccomp: prctl");
		return 1;
	}
	execvp(argv[1], argv + 1);
	perror("noseccomp: execvp");
	return 127;
}
