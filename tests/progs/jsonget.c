// SPDX-License-Identifier: ISC
// Print one value of a JSON file by its dotted path (jsonget FILE status.head), for the report tests.
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	json_error_t error;
	json_t *root, *v;
	char *path, *part, *save = NULL;

	if (argc != 3) {
		fprintf(stderr, "usage: jsonget FILE PATH (e.g. status.head)\n");
		return 2;
	}
	root = json_load_file(argv[1], 0, &error);
	if (!root) {
		fprintf(stderr, "jsonget: %s:%d: %s\n", argv[1], error.line, error.text);
		return 1;
	}
	v = root;
	path = strdup(argv[2]);
	if (!path) {
		perror("jsonget");
		return 1;
	}
	for (part = strtok_r(path, ".", &save); part && v; part = strtok_r(NULL, ".", &save))
		v = json_object_get(v, part);
	free(path);
	if (!v) {
		fprintf(stderr, "jsonget: %s: no %s\n", argv[1], argv[2]);
		json_decref(root);
		return 1;
	}
	if (json_is_string(v))
		puts(json_string_value(v));
	else if (json_is_integer(v))
		printf("%lld\n", (long long)json_integer_value(v));
	else if (json_is_null(v))
		puts("null");
	else if (json_is_boolean(v))
		puts(json_is_true(v) ? "true" : "false");
	else {
		char *s = json_dumps(v, JSON_COMPACT);

		puts(s);
		free(s);
	}
	json_decref(root);
	return 0;
}
