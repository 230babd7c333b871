// SPDX-License-Identifier: ISC
// proctor-isolate: isolate's command line (--init, --run, --cleanup) over proctord.
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "isobox.h"
#include "isocaller.h"
#include "isopaths.h"
#include "isometa.h"
#include "isoopt.h"
#include "isorun.h"
#include "version.h"

static const char *progname = "proctor-isolate";

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "Usage: %s [options] --init | --run -- program [args...] | --cleanup | --version\n"
	    "\n"
	    "isolate's command line (2.x, and 1.8's as judge0 passes it) over proctord:\n"
	    "each --run is one proctord run with --box on box_root/N/box, as the box's\n"
	    "own uid and gid (first_uid + N). Run by root (sudo), or set-user-ID root\n"
	    "for the members of the configuration's setuid_group.\n"
	    "\n"
	    "Options: -b, --box-id=N   -M, --meta=FILE   -s, --silent   --cg   --cg-timing\n"
	    "  -t, --time=S  -x, --extra-time=S  -w, --wall-time=S  (seconds; -x absolute)\n"
	    "  --cg-mem=KiB  -m, --mem=KiB  -k, --stack=KiB  -f, --fsize=KiB  -n, --open-files=N\n"
	    "  -p[N], --processes[=N]  (absent: 1; bare: no limit)\n"
	    "  -i, --stdin=F  -o, --stdout=F  -r, --stderr=F  --stderr-to-stdout  (paths in the "
	    "box)\n"
	    "  -c, --chdir=DIR  -e, --full-env  -E, --env=VAR[=VAL]  --share-net  --wait\n"
	    "  -d, --dir=IN[=OUT][:rw|:noexec|:maybe|:tmp|:norec|:dev], --dir=IN= (removes),\n"
	    "  --dir=/proc=proc:fs, --dir=/tmp=tmpfs:fs   -D, --no-default-dirs  --no-cg-timing\n"
	    "  -v, --verbose (ignored)\n"
	    "\n"
	    "Configuration: $PROCTOR_ISOLATE_CONFIG, else %s (box_root,\n"
	    "lock_root, first_uid, first_gid, num_boxes, setuid_group). proctord: $PROCTORD,\n"
	    "else the one beside this program, else the PATH (set-user-ID: neither variable,\n"
	    "the compiled-in file and proctord only). Exit status: 0 the program exited 0 within\n"
	    "its limits; 1 it did not (RE, SG, TO); 2 internal or usage error (XX).\n"
	    "See proctor-isolate(1).\n",
	    progname, iso_config_path);
}

/* The meta file, opened as isolate does before anything can fail, so that
 * an internal error lands in it too. -1: none asked for. Judgels puts it
 * in box/, where an earlier program may have left a symbolic link (to a
 * file root would then truncate) or a FIFO (which would block us): only a
 * regular file or a character device (/dev/null) is written. */
static int meta_open(const struct iso_caller *caller, const char *path)
{
	struct stat st;
	int fd;

	if (!path)
		return -1;
	if (strcmp(path, "-") == 0)
		return dup(1);
	/* With the caller's rights, as isolate: a set-user-ID caller names
	 * only files it could write itself. */
	fd = iso_caller_open(caller, path,
			     O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0666);
	if (fd >= 0 && (fstat(fd, &st) < 0 || !(S_ISREG(st.st_mode) || S_ISCHR(st.st_mode)))) {
		close(fd);
		fd = -1;
		errno = EINVAL;
	}
	if (fd >= 0 && ((S_ISREG(st.st_mode) && ftruncate(fd, 0) < 0) ||
			fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0)) {
		close(fd);
		fd = -1;
	}
	if (fd < 0) {
		const char *why = errno == ELOOP		      ? "a symbolic link"
				  : errno == EINVAL || errno == ENXIO ? "not a regular file"
								      : strerror(errno);

		fprintf(stderr, "Failed to open meta file '%s': %s\n", path, why);
		exit(2);
	}
	return fd;
}

static void meta_write(int fd, const char *meta)
{
	size_t len = strlen(meta), off = 0;

	while (fd >= 0 && off < len) {
		ssize_t n = write(fd, meta + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fprintf(stderr, "Cannot write the meta file: %s\n", strerror(errno));
			break;
		}
		off += (size_t)n;
	}
}

/* isolate's die(): XX in the meta file, the message on stderr, exit 2. */
static int die(int meta_fd, const char *message)
{
	char meta[2048], line[2048];
	int rc = iso_meta_xx(message, meta, sizeof meta, line, sizeof line);

	meta_write(meta_fd, meta);
	fputs(line, stderr);
	return rc;
}

static int cmd_run(const struct iso_opts *o, const struct iso_box *b, const struct iso_caller *c,
		   int meta_fd)
{
	char err[1024], meta[4096], line[2048], msg[1200];
	struct iso_outcome r;
	struct stat st;
	int rc;

	if (stat(b->box, &st) < 0 || !S_ISDIR(st.st_mode)) {
		snprintf(msg, sizeof msg, "Box not found, did you run `%s --init'?", progname);
		return die(meta_fd, msg);
	}
	if (iso_run(o, b, c, &r, err, sizeof err) < 0)
		return die(meta_fd, err);
	rc = iso_meta(&r, o, meta, sizeof meta, line, sizeof line);
	meta_write(meta_fd, meta);
	fputs(line, stderr);
	return rc;
}

/* The caller may use proctor-isolate (root; set-user-ID, a member of
 * setuid_group), and this box (iso_box_may), whose lock is ours. Another
 * member's box is refused before its lock is taken too (the owner cannot
 * go but by its --cleanup): a caller that stopped us holding it
 * would keep it from its owner. */
static int cmd_admit(const struct iso_opts *o, const struct iso_caller *caller, struct iso_box *b,
		     char *err, size_t errlen)
{
	struct iso_config c;

	if (iso_config_read(&c, caller, err, errlen) < 0 ||
	    iso_caller_allowed(caller, c.setuid_group, c.path, err, errlen) < 0 ||
	    iso_box_find(&c, o->box_id, b, err, errlen) < 0 ||
	    iso_box_open_lock(b, err, errlen) < 0 ||
	    iso_box_foreign(b, caller, err, errlen) < 0 ||
	    iso_box_lock(b, o->wait, err, errlen) < 0 ||
	    iso_box_may(b, caller, o->cmd == ISO_INIT, err, errlen) < 0)
		return -1;
	return 0;
}

static int cmd_box(const struct iso_opts *o, const struct iso_caller *caller, int meta_fd)
{
	struct iso_box b;
	char err[1200];

	if (cmd_admit(o, caller, &b, err, sizeof err) < 0)
		return die(meta_fd, err);
	if (o->cmd == ISO_RUN)
		return cmd_run(o, &b, caller, meta_fd);
	if (o->cmd == ISO_CLEANUP)
		return iso_box_cleanup(&b, err, sizeof err) < 0 ||
			       iso_box_set_owner(&b, -1, err, sizeof err) < 0
			   ? die(meta_fd, err)
			   : 0;
	/* Owned before it is made: a failed --init leaves it the caller's to
	 * --init again or --cleanup. */
	if (iso_box_set_owner(&b, (long)caller->uid, err, sizeof err) < 0 ||
	    iso_box_init(&b, err, sizeof err) < 0)
		return die(meta_fd, err);
	printf("%s\n", b.dir);
	return 0;
}

int main(int argc, char **argv)
{
	static struct iso_opts o;
	struct iso_caller caller;
	char caller_err[512];
	int caller_rc;
	const char *slash = argc > 0 ? strrchr(argv[0], '/') : NULL;
	int meta_fd, rc;

	if (argc > 0)
		progname = slash ? slash + 1 : argv[0];
	if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		usage(stdout);
		return 0;
	}
	umask(022);
	if (iso_parse(argc, argv, &o) < 0) {
		fprintf(stderr, "%s: %s\nTry `%s --help'.\n", progname, o.error, progname);
		return 2;
	}
	if (o.cmd == ISO_VERSION) {
		printf("%s %s: isolate's command line over proctord\n", progname, PROCTOR_VERSION);
		return 0;
	}
	/* Not root at all: the meta file is opened as ours anyway. */
	caller_rc = iso_caller_init(&caller, caller_err, sizeof caller_err);
	meta_fd = meta_open(&caller, o.meta);
	rc = caller_rc < 0 ? die(meta_fd, caller_err) : cmd_box(&o, &caller, meta_fd);
	if (meta_fd >= 0 && close(meta_fd) < 0 && rc < 2) {
		fprintf(stderr, "Cannot write the meta file: %s\n", strerror(errno));
		rc = 2;
	}
	return rc;
}
