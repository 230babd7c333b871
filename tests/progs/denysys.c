// SPDX-License-Identifier: ISC
// denysys CALL:ERRNO... -- CMD [ARGS...]: run CMD under a filter that makes
// each CALL fail with ERRNO (EPERM or ENOSYS) and allows everything else, as
// a container runtime's default profile does (nocap.sh: sethostname refused
// as under Podman's and Docker's profiles without CAP_SYS_ADMIN).
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int denysys_rule(scmp_filter_ctx ctx, const char *spec)
{
	char name[64];
	const char *colon = strchr(spec, ':');
	int nr, err;

	if (!colon || (size_t)(colon - spec) >= sizeof name)
		return -1;
	memcpy(name, spec, (size_t)(colon - spec));
	name[colon - spec] = '\0';
	if (strcmp(colon + 1, "EPERM") == 0)
		err = EPERM;
	else if (strcmp(colon + 1, "ENOSYS") == 0)
		err = ENOSYS;
	else
		return -1;
	nr = seccomp_syscall_resolve_name(name);
	if (nr == __NR_SCMP_ERROR)
		return -1;
	return seccomp_rule_add(ctx, SCMP_ACT_ERRNO((unsigned)err), nr, 0) < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int i;

	if (!ctx)
		return 1;
	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (denysys_rule(ctx, argv[i]) < 0) {
			fprintf(stderr, "denysys: %s: not CALL:EPERM or CALL:ENOSYS\n", argv[i]);
			return 2;
		}
	if (i + 1 >= argc) {
		fprintf(stderr, "usage: denysys CALL:ERRNO... -- CMD [ARGS...]\n");
		return 2;
	}
	if (seccomp_load(ctx) < 0) {
		fprintf(stderr, "denysys: cannot load the filter\n");
		return 1;
	}
	seccomp_release(ctx);
	execvp(argv[i + 1], argv + i + 1);
	perror("denysys: execvp");
	return 127;
}
