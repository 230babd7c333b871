// SPDX-License-Identifier: ISC
// Prints the protocol's vocabulary as the C side spells it (src/common/proto.c),
// one word a line, for tests/unit/vocabulary.py:
//   head running
//   reason cpu-time yes        (yes: emitted by this version; reserved: not)
//   stage setup
#include <stdio.h>

#include "proto.h"

int main(void)
{
	for (int h = 0; h < HEAD_COUNT; h++)
		printf("head %s\n", proto_head_name((enum proto_head)h));
	for (int r = KILL_NONE + 1; r < KILL_COUNT; r++)
		printf("reason %s %s\n", proto_kill_reason_name((enum kill_reason)r),
		       proto_kill_reason_emitted((enum kill_reason)r) ? "yes" : "reserved");
	for (int s = 0; s < STAGE_COUNT; s++)
		printf("stage %s\n", proto_stage_name((enum spawn_stage)s));
	return ferror(stdout) ? 1 : 0;
}
