// SPDX-License-Identifier: ISC
// The floor of a start: only what any supervisor that runs the program in a
// PID namespace must do. The bench executes it as it executes proctord.
//
// usage: floor PROGRAM [ARG...]       an init in a new PID namespace (a plain
//                                     child without the privilege), which forks
//                                     and executes PROGRAM and waits for it; the
//                                     supervisor waits for the init and exits
//                                     with the program's status
//        floor run PROGRAM [ARG...]   first forks and executes "floor PROGRAM..."
//                                     and waits for it: the floor of a command
//                                     that starts a supervisor (proctor run)
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int wait_status(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int init_main(char **argv)
{
	pid_t pid = fork();

	if (pid < 0) {
		perror("floor: fork");
		return 125;
	}
	if (pid == 0) {
		execvp(argv[0], argv);
		perror("floor: exec");
		_exit(127);
	}
	return wait_status(pid);
}

int main(int argc, char **argv)
{
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: floor [run] PROGRAM [ARG...]\n");
		return 2;
	}
	if (strcmp(argv[1], "run") == 0 && argc > 2) {
		argv[1] = argv[0];
		pid = fork();
		if (pid == 0) {
			execv("/proc/self/exe", argv + 1);
			perror("floor: exec");
			_exit(127);
		}
		return pid < 0 ? 125 : wait_status(pid);
	}
	pid = (pid_t)syscall(SYS_clone, CLONE_NEWPID | SIGCHLD, NULL, NULL, NULL, NULL);
	if (pid < 0)
		pid = fork();
	if (pid < 0) {
		perror("floor: clone");
		return 125;
	}
	if (pid == 0)
		_exit(init_main(argv + 1));
	return wait_status(pid);
}
