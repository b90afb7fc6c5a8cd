/*
 * engine_kids: a client's engines on fork children, by pid. An observer
 * that follows forks (ENGINE_OBSERVE_FORKS) gets one engine per child and
 * must leave each when that child's process ends, or when it stops
 * tracing; ustrace and the daemon's trace sessions keep them here.
 */
#include "engine.h"

#include <stdlib.h>

bool engine_kids_add(struct engine_kids *k, struct engine *e, pid_t pid)
{
	if (k->n == k->cap) {
		size_t cap = k->cap ? 2 * k->cap : 16;
		struct engine_kid *v = realloc(k->v, cap * sizeof(*v));

		if (!v)
			return false;
		k->v = v;
		k->cap = cap;
	}
	k->v[k->n++] = (struct engine_kid){e, pid};
	return true;
}

bool engine_kids_drop(struct engine_kids *k, pid_t pid)
{
	for (size_t i = 0; i < k->n; i++) {
		if (k->v[i].pid != pid)
			continue;
		engine_detach(k->v[i].e);
		k->v[i] = k->v[--k->n];
		return true;
	}
	return false;
}

void engine_kids_leave(struct engine_kids *k)
{
	while (k->n)
		engine_detach(k->v[--k->n].e);
	free(k->v);
	*k = (struct engine_kids){0};
}
