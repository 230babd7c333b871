// SPDX-License-Identifier: ISC
// Cgroup discovery as pure functions over the text of mountinfo and /proc/PID/cgroup.
#include <stdio.h>
#include <string.h>

#include "cgdiscover.h"
#include "util.h"

int cgd_has_word(const char *list, const char *w)
{
	size_t wl = strlen(w);

	for (const char *p = list; (p = strstr(p, w)); p += wl) {
		int start = p == list || p[-1] == ' ' || p[-1] == ',';
		int end = p[wl] == '\0' || p[wl] == ' ' || p[wl] == ',' || p[wl] == '\n';

		if (start && end)
			return 1;
	}
	return 0;
}

void cgd_unescape(char *s)
{
	char *w = s;

	for (char *r = s; *r; r++) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' &&
		    r[3] >= '0' && r[3] <= '7') {
			*w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			r += 3;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
}

size_t cgd_parse_mountinfo(char *text, struct cgd_mount *mv, size_t max)
{
	char *line, *save = NULL;
	size_t n = 0;

	for (line = strtok_r(text, "\n", &save); line && n < max;
	     line = strtok_r(NULL, "\n", &save)) {
		char root[512], point[512], fstype[64], super[256];
		const char *dash = strstr(line, " - ");

		if (!dash || sscanf(line, "%*s %*s %*s %511s %511s", root, point) != 2 ||
		    sscanf(dash + 3, "%63s %*s %255s", fstype, super) != 2)
			continue;
		if (strcmp(fstype, "cgroup2") != 0 && strcmp(fstype, "cgroup") != 0)
			continue;
		cgd_unescape(root);
		cgd_unescape(point);
		mv[n].version = fstype[6] == '2' ? 2 : 1;
		strlcpy(mv[n].root, root, sizeof mv[n].root);
		strlcpy(mv[n].point, point, sizeof mv[n].point);
		strlcpy(mv[n].opts, super, sizeof mv[n].opts);
		n++;
	}
	return n;
}

char *cgd_dir_under(const struct cgd_mount *m, const char *path)
{
	size_t rl = strlen(m->root);
	const char *rel;
	char *dir;

	if (strcmp(m->root, "/") == 0)
		rel = path;
	else if (strncmp(path, m->root, rl) == 0 && (path[rl] == '/' || path[rl] == '\0'))
		rel = path + rl;
	else
		return NULL;
	if (strcmp(rel, "/") == 0 || *rel == '\0')
		rel = "";
	xasprintf(&dir, "%s%s", m->point, rel);
	return dir;
}

/* Whether a v1 hierarchy of these controllers serves a role. */
static int cgd_useful_v1(const char *ctrls)
{
	return cgd_has_word(ctrls, "memory") || cgd_has_word(ctrls, "pids") ||
	       cgd_has_word(ctrls, "cpuacct") || cgd_has_word(ctrls, "cpu") ||
	       cgd_has_word(ctrls, "freezer") || cgd_has_word(ctrls, "cpuset");
}

/* Whether mount m is of the hierarchy of version v and controllers ctrls:
 * a v1 mount's options name every controller of its hierarchy. */
static int cgd_mount_of(const struct cgd_mount *m, int v, const char *ctrls)
{
	char tmp[96], *tok, *ts = NULL;

	if (m->version != v)
		return 0;
	if (v == 2)
		return 1;
	strlcpy(tmp, ctrls, sizeof tmp);
	for (tok = strtok_r(tmp, ",", &ts); tok; tok = strtok_r(NULL, ",", &ts))
		if (!cgd_has_word(m->opts, tok))
			return 0;
	return 1;
}

size_t cgd_match(char *proc_cgroup, const struct cgd_mount *mv, size_t nm, struct cgd_hier *out,
		 size_t max)
{
	char *line, *save = NULL;
	size_t n = 0;

	for (line = strtok_r(proc_cgroup, "\n", &save); line && n < max;
	     line = strtok_r(NULL, "\n", &save)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		int v;

		if (!c2)
			continue;
		*c1 = *c2 = '\0';
		v = strcmp(line, "0") == 0 && c1[1] == '\0' ? 2 : 1;
		if (v == 1 && !cgd_useful_v1(c1 + 1))
			continue;
		for (size_t i = 0; i < nm; i++) {
			char *dir;

			if (!cgd_mount_of(&mv[i], v, c1 + 1))
				continue;
			dir = cgd_dir_under(&mv[i], c2 + 1);
			if (!dir)
				continue;
			out[n].version = v;
			strlcpy(out[n].ctrls, v == 2 ? "" : c1 + 1, sizeof out[n].ctrls);
			out[n].parent = dir;
			n++;
			break;
		}
	}
	return n;
}

int cgd_outside_ns(const char *root)
{
	return strncmp(root, "/..", 3) == 0 && (root[3] == '\0' || root[3] == '/');
}

int cgd_uidmap_initial(const char *uid_map)
{
	unsigned long inside, outside, count;
	int used = 0;

	if (sscanf(uid_map, " %lu %lu %lu %n", &inside, &outside, &count, &used) != 3)
		return 0;
	return inside == 0 && outside == 0 && count == 4294967295UL && uid_map[used] == '\0';
}
