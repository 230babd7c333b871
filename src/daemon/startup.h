// SPDX-License-Identifier: ISC
// proctord's start-up as a process: descriptors 0-2, the ending signals,
// --daemonize and its readiness pipe, systemd's notification, and the
// terminal handed to the program and taken back.
#ifndef PROCTOR_STARTUP_H
#define PROCTOR_STARTUP_H

#include "identity.h"
#include "options.h"

/* Descriptors 0-2 must be open before anything else is: a FIFO that landed
 * on descriptor 1 would receive the program's output. */
void startup_stdio(void);
/* Block (SIG_BLOCK) or unblock (SIG_UNBLOCK) the signals that end the
 * sandbox (supervise_end_signals). */
void startup_signals_block(int how);
/* The loop is over and the clean-up begins: ignore those signals. */
void startup_signals_ignore(void);
/* --daemonize: fork; the caller's side calls disown (what the daemon owns
 * now, the caller's exit must not undo), waits for the daemon's readiness
 * and exits. Returns the write end of the readiness pipe in the daemon. */
int startup_daemonize(struct options *o, char **env, void (*disown)(void));
/* proctord as a supervisor: SIGPIPE ignored, the subreaper of the
 * program's orphans. Returns the caller's nice value, which the program
 * gets back. Exits on failure. */
int startup_supervisor(void);
/* Started by systemd (Type=notify): send it state. */
void startup_notify(const char *state);
/* --tty-foreground: whether to hand the terminal to the program: 0 if not,
 * else the descriptor (0, 1 or 2: the first that is the terminal whose
 * foreground is proctord's group) + 1. */
int startup_tty_handover(const struct options *o, const struct identity *iso);
/* The terminal on descriptor fd back to proctord's group once the
 * program's is gone. */
void startup_tty_take_back(int fd);
/* --tty-foreground, once the program has started: proctord joins the
 * program's process group, the terminal's foreground, so that the
 * terminal's ^C reaches proctord too (job control's stops are ignored).
 * Returns the group proctord leaves (for startup_tty_leave), or 0 when it
 * could not join (the program has ended already). */
pid_t startup_tty_join(pid_t program);
/* Back to the group left (or a new one of its own), before the terminal is
 * taken back. */
void startup_tty_leave(pid_t group);
/* --daemonize: the FIFOs are served; send dir to the caller and let go of
 * its terminal and pipes. */
void startup_ready(int fd, const char *dir);

#endif
