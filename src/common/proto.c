// SPDX-License-Identifier: ISC
#include <string.h>

#include "proto.h"

static const char *const head_names[HEAD_COUNT] = {
	[HEAD_RUNNING] = "running", [HEAD_EXITED] = "exited", [HEAD_SIGNALED] = "signaled",
	[HEAD_KILLED] = "killed",   [HEAD_FAILED] = "failed", [HEAD_INVALID] = "invalid",
};

static const char *const kill_reason_names[KILL_COUNT] = {
	[KILL_NONE] = "none",
	[KILL_CPU_TIME] = "cpu-time",
	[KILL_WALL_TIME] = "wall-time",
	[KILL_MEMORY] = "memory",
	[KILL_OUTPUT] = "output",
	[KILL_FILE_SIZE] = "file-size",
	[KILL_TERMINATE] = "terminate",
	[KILL_SYSCALL] = "syscall",
	[KILL_PIDS] = "pids",
};

static const char *const stage_names[STAGE_COUNT] = {
	[STAGE_SETUP] = "setup",   [STAGE_LIMITS] = "limits", [STAGE_STDIN] = "stdin",
	[STAGE_STDOUT] = "stdout", [STAGE_STDERR] = "stderr", [STAGE_CHDIR] = "chdir",
	[STAGE_EXEC] = "exec",
};

static const char *proto_name(const char *const *names, int n, int v)
{
	return v >= 0 && v < n ? names[v] : "unknown";
}

static int proto_parse(const char *const *names, int first, int n, const char *word)
{
	for (int i = first; i < n; i++)
		if (strcmp(names[i], word) == 0)
			return i;
	return -1;
}

const char *proto_head_name(enum proto_head h)
{
	return proto_name(head_names, HEAD_COUNT, (int)h);
}

const char *proto_kill_reason_name(enum kill_reason r)
{
	return proto_name(kill_reason_names, KILL_COUNT, (int)r);
}

const char *proto_stage_name(enum spawn_stage s)
{
	return proto_name(stage_names, STAGE_COUNT, (int)s);
}

int proto_kill_reason_emitted(enum kill_reason r)
{
	return r > KILL_NONE && r < KILL_COUNT && r != KILL_PIDS;
}

int proto_kill_reason_is_limit(enum kill_reason r)
{
	return r > KILL_NONE && r < KILL_COUNT && r != KILL_TERMINATE && r != KILL_SYSCALL;
}

int proto_head_parse(const char *word)
{
	return proto_parse(head_names, 0, HEAD_COUNT, word);
}

int proto_kill_reason_parse(const char *word)
{
	/* "none" is not a word of the protocol. */
	return proto_parse(kill_reason_names, KILL_NONE + 1, KILL_COUNT, word);
}

int proto_stage_parse(const char *word)
{
	return proto_parse(stage_names, 0, STAGE_COUNT, word);
}
