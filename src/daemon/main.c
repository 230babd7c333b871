// SPDX-License-Identifier: ISC
// proctord: the start-up sequence, the event loop, and the clean-up.
#include <ev.h>
#include <signal.h>

#include "check.h"
#include "config.h"
#include "fifo.h"
#include "log.h"
#include "options.h"
#include "prio.h"
#include "startup.h"
#include "supervise.h"
#include "title.h"
#include "wiring.h"

int main(int argc, char **argv)
{
	/* Static: the exit handlers may use it after main has returned. */
	static struct sandbox sb;
	struct options o;
	int code;

	/* Before anything keeps a pointer into argv or the environment. */
	title_init(argc, argv);
	log_init("proctord");
	startup_stdio();
	options_parse(argc, argv, &o);
	options_warnings(&o);
	if (o.check)
		return check_run(&o);

	wiring_prepare(&sb, &o);
	/* From the first thing left behind (the cgroups) to the end of the
	 * clean-up, SIGTERM and the others must not kill proctord: held
	 * until the loop's signalfd takes them over, pending ones included;
	 * ignored once the loop is over (startup_signals_ignore). */
	startup_signals_block(SIG_BLOCK);
	code = wiring_cgroups(&sb);
	if (code) {
		/* --strict refused a limit: what was set up so far, undone. */
		wiring_cgroups_remove(&sb);
		wiring_prepare_free(&sb);
		config_free(&o.cfg);
		return code;
	}
	sb.env = options_env(&o.cfg);
	if (o.daemonize)
		sb.ready_fd = startup_daemonize(&o, sb.env, wiring_disown);
	sb.nice_value = startup_supervisor();
	wiring_serve(&sb);
	wiring_start(&sb);
	code = wiring_supervise(&sb);
	if (code)
		return code;
	fifo_start(&sb.fifo);
	if (sb.ready_fd >= 0)
		startup_ready(sb.ready_fd, sb.dir.path);
	startup_notify("READY=1");

	ev_run(sb.loop, 0);

	startup_signals_ignore();
	code = wiring_result(&sb);
	/* The clean-up, in the reverse order of the start-up but for two
	 * steps taken first: proctord's priority drops (reaping a large tree
	 * is not to be done real-time) and the cgroups go before the
	 * directory does, whose removal tells a client that proctord is
	 * done. */
	supervise_finish(&sb.sv);
	prio_finish(&sb.prio);
	wiring_cgroups_remove(&sb);
	wiring_output_close(&sb);
	wiring_serve_close(&sb);
	options_env_free(sb.env);
	wiring_prepare_free(&sb);
	config_free(&o.cfg);
	return code;
}
