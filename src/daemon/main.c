// SPDX-License-Identifier: ISC
// proctord: a sandbox's four phases in turn: start, run, report, end.
#include <ev.h>

#include "box.h"
#include "check.h"
#include "config.h"
#include "fifo.h"
#include "log.h"
#include "options.h"
#include "sandbox.h"
#include "startup.h"
#include "supervise.h"
#include "title.h"

int main(int argc, char **argv)
{
	/* Static: log_fatal's teardown may use it from anywhere. */
	static struct sandbox sb;
	struct options o;
	int code;

	/* Before proctord opens anything: what it was started with. */
	box_note_inherited();
	/* Before anything keeps a pointer into argv or the environment. */
	title_init(argc, argv);
	log_init("proctord");
	startup_stdio();
	options_parse(argc, argv, &o);
	options_warnings(&o);
	if (o.check)
		return check_run(&o);

	/* The start: on a failure, what it did is undone already. */
	code = sandbox_start(&sb, &o);
	if (code) {
		config_free(&o.cfg);
		return code;
	}

	/* The run. */
	fifo_start(&sb.fifo);
	if (sb.ready_fd >= 0) {
		startup_ready(sb.ready_fd, sb.dir.path);
		sb.ready_fd = -1;
	}
	startup_notify("READY=1");
	if (supervise_start(&sb.sv))
		ev_run(sb.loop, 0);

	/* The report (unless the supervisor has made it already), then the
	 * end: a signal now (a second SIGTERM, one that came as the loop
	 * ended) must not cut them short. */
	startup_signals_ignore();
	code = sandbox_report(&sb);
	sandbox_end(&sb);
	config_free(&o.cfg);
	return code;
}
