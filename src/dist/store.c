/* src/dist/store.c — the TCP store (store.h).  The server is a thread in the master's process
 * running a poll() loop over its listening socket, its clients and a wake-up pipe; every request
 * is answered at once (the server never blocks on a key).  Blocking reads (get, wait) are client
 * polls with a growing back-off up to a deadline, so a client that gives up leaves no half-read
 * reply on its connection.
 *
 * Wire format, both directions: u8 code, u32 count, then count x (u32 length, bytes); integers are
 * little-endian.  Request codes are StoreCmd; a reply's code is 0 (ok) or 1 (error text). */
#include "src/dist/store.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

typedef enum StoreCmd {
    CMD_SET = 1, CMD_GET, CMD_ADD, CMD_CHECK, CMD_DELETE, CMD_NUM_KEYS, CMD_COMPARE_SET, CMD_CLIENTS,
} StoreCmd;

#define MAX_ARGS 64
#define MAX_MSG (256u << 20)

typedef struct Buf {
    char *p;
    size_t n, cap;
} Buf;

static int buf_put(Buf *b, const void *d, size_t n) {
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 256;
        while (cap < b->n + n) cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p) return -1;
        b->p = p, b->cap = cap;
    }
    if (n) memcpy(b->p + b->n, d, n);   /* an empty value may come as a NULL pointer */
    b->n += n;
    return 0;
}
static int buf_u32(Buf *b, uint32_t v) { return buf_put(b, &v, 4); }
static int buf_arg(Buf *b, const void *d, size_t n) { return buf_u32(b, (uint32_t)n) < 0 ? -1 : buf_put(b, d, n); }

/* A parsed message: args point into the message buffer. */
typedef struct Msg {
    uint8_t code;
    uint32_t nargs;
    const char *arg[MAX_ARGS];
    uint32_t len[MAX_ARGS];
} Msg;

/* Parses a complete message at the start of p[0..n): its length, 0 if incomplete, -1 if bad. */
static ptrdiff_t msg_parse(const char *p, size_t n, Msg *m) {
    if (n < 5) return 0;
    m->code = (uint8_t)p[0];
    memcpy(&m->nargs, p + 1, 4);
    if (m->nargs > MAX_ARGS) return -1;
    size_t off = 5;
    for (uint32_t i = 0; i < m->nargs; i++) {
        if (n < off + 4) return 0;
        uint32_t l;
        memcpy(&l, p + off, 4);
        if (l > MAX_MSG) return -1;
        off += 4;
        if (n < off + l) return 0;
        m->arg[i] = p + off;
        m->len[i] = l;
        off += l;
    }
    return (ptrdiff_t)off;
}

static void set_err(char *err, size_t errlen, const char *fmt, ...) {
    if (!err || !errlen) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

static int64_t now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void sleep_ms(int64_t ms) {
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000};
    nanosleep(&t, NULL);
}

static int write_all(int fd, const char *p, size_t n) {
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += w, n -= (size_t)w;
    }
    return 0;
}

/* ---- server ---------------------------------------------------------------------------------- */

typedef struct Entry {
    char *key;
    char *val;
    size_t len;
} Entry;

typedef struct Client {
    int fd;
    Buf in;
} Client;

typedef struct Server {
    int listen_fd;
    int wake[2];
    pthread_t thread;
    Entry *kv;
    size_t nkv, capkv;
    Client *clients;
    size_t nclients, capclients;
    int64_t clients_seen;
} Server;

static Entry *kv_find(Server *sv, const char *key, size_t klen) {
    for (size_t i = 0; i < sv->nkv; i++)
        if (strlen(sv->kv[i].key) == klen && memcmp(sv->kv[i].key, key, klen) == 0) return &sv->kv[i];
    return NULL;
}

static int kv_set(Server *sv, const char *key, size_t klen, const char *val, size_t vlen) {
    char *v = malloc(vlen ? vlen : 1);
    if (!v) return -1;
    if (vlen) memcpy(v, val, vlen);
    Entry *e = kv_find(sv, key, klen);
    if (e) {
        free(e->val);
        e->val = v, e->len = vlen;
        return 0;
    }
    if (sv->nkv == sv->capkv) {
        size_t cap = sv->capkv ? sv->capkv * 2 : 64;
        Entry *kv = realloc(sv->kv, cap * sizeof *kv);
        if (!kv) return free(v), -1;
        sv->kv = kv, sv->capkv = cap;
    }
    char *k = malloc(klen + 1);
    if (!k) return free(v), -1;
    memcpy(k, key, klen);
    k[klen] = 0;
    sv->kv[sv->nkv++] = (Entry){k, v, vlen};
    return 0;
}

static void kv_delete(Server *sv, Entry *e) {
    free(e->key);
    free(e->val);
    *e = sv->kv[--sv->nkv];
}

/* Builds the reply to one request. */
static int serve_one(Server *sv, const Msg *m, Buf *out) {
    uint8_t ok = 0;
    switch (m->code) {
    case CMD_SET:
        if (m->nargs != 2 || kv_set(sv, m->arg[0], m->len[0], m->arg[1], m->len[1]) < 0) goto bad;
        return buf_put(out, &ok, 1) < 0 ? -1 : buf_u32(out, 0);
    case CMD_GET: {
        if (m->nargs != 1) goto bad;
        Entry *e = kv_find(sv, m->arg[0], m->len[0]);
        uint8_t found = e != NULL;
        if (buf_put(out, &ok, 1) < 0 || buf_u32(out, found ? 2 : 1) < 0 || buf_arg(out, &found, 1) < 0) return -1;
        return found ? buf_arg(out, e->val, e->len) : 0;
    }
    case CMD_ADD: {
        if (m->nargs != 2 || m->len[1] != 8) goto bad;
        int64_t delta, v = 0;
        memcpy(&delta, m->arg[1], 8);
        Entry *e = kv_find(sv, m->arg[0], m->len[0]);
        if (e) {
            char tmp[32];
            size_t l = e->len < sizeof tmp - 1 ? e->len : sizeof tmp - 1;
            memcpy(tmp, e->val, l);
            tmp[l] = 0;
            v = strtoll(tmp, NULL, 10);
        }
        v += delta;
        char num[32];
        int l = snprintf(num, sizeof num, "%lld", (long long)v);
        if (kv_set(sv, m->arg[0], m->len[0], num, (size_t)l) < 0) goto bad;
        return buf_put(out, &ok, 1) < 0 || buf_u32(out, 1) < 0 ? -1 : buf_arg(out, &v, 8);
    }
    case CMD_CHECK: {
        uint8_t all = 1;
        for (uint32_t i = 0; i < m->nargs; i++)
            if (!kv_find(sv, m->arg[i], m->len[i])) all = 0;
        return buf_put(out, &ok, 1) < 0 || buf_u32(out, 1) < 0 ? -1 : buf_arg(out, &all, 1);
    }
    case CMD_DELETE: {
        if (m->nargs != 1) goto bad;
        Entry *e = kv_find(sv, m->arg[0], m->len[0]);
        uint8_t found = e != NULL;
        if (e) kv_delete(sv, e);
        return buf_put(out, &ok, 1) < 0 || buf_u32(out, 1) < 0 ? -1 : buf_arg(out, &found, 1);
    }
    case CMD_NUM_KEYS:
    case CMD_CLIENTS: {
        int64_t n = m->code == CMD_NUM_KEYS ? (int64_t)sv->nkv : sv->clients_seen;
        return buf_put(out, &ok, 1) < 0 || buf_u32(out, 1) < 0 ? -1 : buf_arg(out, &n, 8);
    }
    case CMD_COMPARE_SET: {
        if (m->nargs != 3) goto bad;
        Entry *e = kv_find(sv, m->arg[0], m->len[0]);
        if ((!e && m->len[1] == 0) || (e && e->len == m->len[1] && memcmp(e->val, m->arg[1], e->len) == 0)) {
            if (kv_set(sv, m->arg[0], m->len[0], m->arg[2], m->len[2]) < 0) goto bad;
            e = kv_find(sv, m->arg[0], m->len[0]);
        }
        if (buf_put(out, &ok, 1) < 0 || buf_u32(out, 1) < 0) return -1;
        return e ? buf_arg(out, e->val, e->len) : buf_arg(out, m->arg[1], m->len[1]);
    }
    default:
        break;
    }
bad:;
    uint8_t code = 1;
    const char *msg = "bad store request";
    return buf_put(out, &code, 1) < 0 || buf_u32(out, 1) < 0 ? -1 : buf_arg(out, msg, strlen(msg));
}

static void drop_client(Server *sv, size_t i) {
    close(sv->clients[i].fd);
    free(sv->clients[i].in.p);
    sv->clients[i] = sv->clients[--sv->nclients];
}

/* Reads what a client sent and answers every complete request; -1 drops the client. */
static int serve_client(Server *sv, Client *c) {
    char tmp[65536];
    ssize_t r = recv(c->fd, tmp, sizeof tmp, 0);
    if (r <= 0) return r < 0 && (errno == EINTR || errno == EAGAIN) ? 0 : -1;
    if (buf_put(&c->in, tmp, (size_t)r) < 0) return -1;
    size_t off = 0;
    for (;;) {
        Msg m;
        ptrdiff_t n = msg_parse(c->in.p + off, c->in.n - off, &m);
        if (n < 0) return -1;
        if (n == 0) break;
        Buf out = {0};
        int rc = serve_one(sv, &m, &out);
        if (rc == 0) rc = write_all(c->fd, out.p, out.n);
        free(out.p);
        if (rc < 0) return -1;
        off += (size_t)n;
    }
    memmove(c->in.p, c->in.p + off, c->in.n - off);
    c->in.n -= off;
    return 0;
}

static void *server_main(void *arg) {
    Server *sv = arg;
    struct pollfd *fds = NULL;
    size_t capfds = 0;
    for (;;) {
        size_t n = sv->nclients + 2;
        if (n > capfds) {
            struct pollfd *p = realloc(fds, n * sizeof *fds);
            if (!p) break;
            fds = p, capfds = n;
        }
        fds[0] = (struct pollfd){sv->wake[0], POLLIN, 0};
        fds[1] = (struct pollfd){sv->listen_fd, POLLIN, 0};
        for (size_t i = 0; i < sv->nclients; i++) fds[i + 2] = (struct pollfd){sv->clients[i].fd, POLLIN, 0};
        if (poll(fds, n, -1) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        if (fds[0].revents) break;   /* shutdown */
        /* clients first, from the end, so drop_client's swap does not skip one */
        for (size_t i = sv->nclients; i-- > 0;)
            if (fds[i + 2].revents && serve_client(sv, &sv->clients[i]) < 0) drop_client(sv, i);
        if (fds[1].revents & POLLIN) {
            int fd = accept(sv->listen_fd, NULL, NULL);
            if (fd >= 0) {
                int one = 1;
                setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                if (sv->nclients == sv->capclients) {
                    size_t cap = sv->capclients ? sv->capclients * 2 : 16;
                    Client *cl = realloc(sv->clients, cap * sizeof *cl);
                    if (!cl) {
                        close(fd);
                        continue;
                    }
                    sv->clients = cl, sv->capclients = cap;
                }
                sv->clients[sv->nclients++] = (Client){fd, {0}};
                sv->clients_seen++;
            }
        }
    }
    free(fds);
    return NULL;
}

static Server *server_start(int *port, char *err, size_t errlen) {
    int fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1, zero = 0;
    struct sockaddr_storage ss;
    socklen_t sl;
    memset(&ss, 0, sizeof ss);
    if (fd >= 0) {
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
        a->sin6_family = AF_INET6;
        a->sin6_addr = in6addr_any;
        a->sin6_port = htons((uint16_t)*port);
        sl = sizeof *a;
    } else {
        fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_in *a = (struct sockaddr_in *)&ss;
        a->sin_family = AF_INET;
        a->sin_addr.s_addr = htonl(INADDR_ANY);
        a->sin_port = htons((uint16_t)*port);
        sl = sizeof *a;
    }
    if (fd < 0) {
        set_err(err, errlen, "The server socket could not be created (errno: %d - %s).", errno, strerror(errno));
        return NULL;
    }
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, (struct sockaddr *)&ss, sl) < 0 || listen(fd, 128) < 0) {
        int e = errno;
        close(fd);
        set_err(err, errlen,
                "The server socket has failed to listen on any local network address. The server socket has "
                "failed to bind to [::]:%d (errno: %d - %s).", *port, e, strerror(e));
        return NULL;
    }
    sl = sizeof ss;
    getsockname(fd, (struct sockaddr *)&ss, &sl);
    *port = ss.ss_family == AF_INET6 ? ntohs(((struct sockaddr_in6 *)&ss)->sin6_port)
                                     : ntohs(((struct sockaddr_in *)&ss)->sin_port);
    Server *sv = calloc(1, sizeof *sv);
    if (!sv || pipe2(sv->wake, O_CLOEXEC) < 0) {
        close(fd);
        free(sv);
        set_err(err, errlen, "out of resources starting the store server");
        return NULL;
    }
    sv->listen_fd = fd;
    if (pthread_create(&sv->thread, NULL, server_main, sv) != 0) {
        close(fd);
        close(sv->wake[0]);
        close(sv->wake[1]);
        free(sv);
        set_err(err, errlen, "could not start the store server thread");
        return NULL;
    }
    return sv;
}

static void server_stop(Server *sv) {
    if (!sv) return;
    char b = 0;
    if (write(sv->wake[1], &b, 1) < 0) { /* the thread also stops when the pipe closes */ }
    pthread_join(sv->thread, NULL);
    for (size_t i = 0; i < sv->nclients; i++) {
        close(sv->clients[i].fd);
        free(sv->clients[i].in.p);
    }
    for (size_t i = 0; i < sv->nkv; i++) free(sv->kv[i].key), free(sv->kv[i].val);
    free(sv->clients);
    free(sv->kv);
    close(sv->listen_fd);
    close(sv->wake[0]);
    close(sv->wake[1]);
    free(sv);
}

/* ---- client ---------------------------------------------------------------------------------- */

struct DistStore {
    atomic_int refcount;
    pthread_mutex_t lock;
    int fd;
    char *host;
    int port;
    int64_t timeout_ms;
    Server *server;
    Buf in;
    DistStoreOps ops;
};

static int connect_once(const char *host, int port) {
    char ps[16];
    snprintf(ps, sizeof ps, "%d", port);
    struct addrinfo hints = {0}, *res = NULL;
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(host, ps, &hints, &res) != 0) return -1;
    int fd = -1;
    for (struct addrinfo *a = res; a; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) continue;
        if (connect(fd, a->ai_addr, a->ai_addrlen) == 0) break;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd >= 0) {
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
    return fd;
}

/* Sends one request and reads its reply into s->in; *m points into s->in.  Holds s->lock. */
static int roundtrip(DistStore *s, uint8_t code, int nargs, const void *const *args, const size_t *lens, Msg *m,
                     char *err, size_t errlen) {
    if (s->fd < 0) {
        set_err(err, errlen, "the store connection to (%s, %d) is closed", s->host, s->port);
        return -1;
    }
    Buf out = {0};
    int rc = buf_put(&out, &code, 1) < 0 || buf_u32(&out, (uint32_t)nargs) < 0 ? -1 : 0;
    for (int i = 0; rc == 0 && i < nargs; i++) rc = buf_arg(&out, args[i], lens[i]);
    if (rc == 0) rc = write_all(s->fd, out.p, out.n);
    free(out.p);
    if (rc < 0) goto lost;
    s->in.n = 0;
    for (;;) {
        ptrdiff_t n = msg_parse(s->in.p, s->in.n, m);
        if (n < 0) goto lost;
        if (n > 0) break;
        struct pollfd p = {s->fd, POLLIN, 0};
        int pr = poll(&p, 1, (int)(s->timeout_ms > 0 ? s->timeout_ms : -1));
        if (pr < 0 && errno == EINTR) continue;
        if (pr == 0) {
            set_err(err, errlen, "Socket Timeout: no reply from the store at (%s, %d) within %lld ms", s->host,
                    s->port, (long long)s->timeout_ms);
            close(s->fd);
            s->fd = -1;
            return -1;
        }
        char tmp[65536];
        ssize_t r = recv(s->fd, tmp, sizeof tmp, 0);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0 || buf_put(&s->in, tmp, (size_t)r) < 0) goto lost;
    }
    if (m->code != 0) {
        set_err(err, errlen, "store error: %.*s", m->nargs ? (int)m->len[0] : 0, m->nargs ? m->arg[0] : "");
        return -1;
    }
    return 0;
lost:
    set_err(err, errlen, "Connection to the store at (%s, %d) was lost (the process serving it, rank 0, may have "
                         "exited): %s", s->host, s->port, strerror(errno ? errno : ECONNRESET));
    close(s->fd);
    s->fd = -1;
    return -1;
}

DistStore *dist_store_tcp_new(const char *host, int port, int world_size, bool is_master, int64_t timeout_ms,
                              bool wait_for_workers, char *err, size_t errlen) {
    DistStore *s = calloc(1, sizeof *s);
    if (!s) return set_err(err, errlen, "out of memory"), NULL;
    atomic_init(&s->refcount, 1);
    pthread_mutex_init(&s->lock, NULL);
    s->fd = -1;
    s->timeout_ms = timeout_ms;
    s->host = strdup(host && host[0] ? host : "127.0.0.1");
    if (is_master) {
        s->server = server_start(&port, err, errlen);
        if (!s->server) goto fail;
    }
    s->port = port;
    int64_t deadline = now_ms() + timeout_ms, backoff = 1;
    while ((s->fd = connect_once(is_master ? "127.0.0.1" : s->host, port)) < 0) {
        if (now_ms() >= deadline) {
            set_err(err, errlen,
                    "The client socket has timed out after %llds while trying to connect to (%s, %d).",
                    (long long)(timeout_ms / 1000), s->host, port);
            goto fail;
        }
        sleep_ms(backoff);
        backoff = backoff < 100 ? backoff * 2 : 100;
    }
    if (is_master && wait_for_workers) {
        backoff = 1;
        for (;;) {
            Msg m;
            int64_t n = 0;
            pthread_mutex_lock(&s->lock);
            int rc = roundtrip(s, CMD_CLIENTS, 0, NULL, NULL, &m, err, errlen);
            if (rc == 0) memcpy(&n, m.arg[0], 8);
            pthread_mutex_unlock(&s->lock);
            if (rc < 0) goto fail;
            if (n >= world_size) break;
            if (now_ms() >= deadline) {
                set_err(err, errlen, "Timed out after %lld seconds waiting for clients. %lld/%d clients joined.",
                        (long long)(timeout_ms / 1000), (long long)n, world_size);
                goto fail;
            }
            sleep_ms(backoff);
            backoff = backoff < 50 ? backoff * 2 : 50;
        }
    }
    return s;
fail:
    dist_store_decref(s);
    return NULL;
}

void dist_store_incref(DistStore *s) { atomic_fetch_add(&s->refcount, 1); }

void dist_store_decref(DistStore *s) {
    if (!s || atomic_fetch_sub(&s->refcount, 1) != 1) return;
    if (s->fd >= 0) close(s->fd);
    server_stop(s->server);
    pthread_mutex_destroy(&s->lock);
    free(s->in.p);
    free(s->host);
    free(s);
}

int dist_store_port(const DistStore *s) { return s->port; }
const char *dist_store_host(const DistStore *s) { return s->host; }
int64_t dist_store_timeout(const DistStore *s) { return s->timeout_ms; }
void dist_store_set_timeout(DistStore *s, int64_t timeout_ms) { s->timeout_ms = timeout_ms; }

int dist_store_set(DistStore *s, const char *key, const void *data, size_t len, char *err, size_t errlen) {
    const void *args[2] = {key, data};
    size_t lens[2] = {strlen(key), len};
    Msg m;
    pthread_mutex_lock(&s->lock);
    int rc = roundtrip(s, CMD_SET, 2, args, lens, &m, err, errlen);
    pthread_mutex_unlock(&s->lock);
    return rc;
}

/* One non-blocking get: 1 found (*data malloc'd), 0 absent, -1 error. */
static int get_now(DistStore *s, const char *key, void **data, size_t *len, char *err, size_t errlen) {
    const void *args[1] = {key};
    size_t lens[1] = {strlen(key)};
    Msg m;
    pthread_mutex_lock(&s->lock);
    int rc = roundtrip(s, CMD_GET, 1, args, lens, &m, err, errlen);
    if (rc == 0) {
        rc = m.arg[0][0] ? 1 : 0;
        if (rc == 1) {
            *data = malloc(m.len[1] ? m.len[1] : 1);
            if (!*data) {
                rc = -1;
                set_err(err, errlen, "out of memory");
            } else {
                memcpy(*data, m.arg[1], m.len[1]);
                *len = m.len[1];
            }
        }
    }
    pthread_mutex_unlock(&s->lock);
    return rc;
}

int dist_store_get(DistStore *s, const char *key, void **data, size_t *len, int64_t timeout_ms, char *err,
                   size_t errlen) {
    if (timeout_ms < 0) timeout_ms = s->timeout_ms;
    int64_t deadline = now_ms() + timeout_ms, backoff = 1;
    for (;;) {
        int rc = get_now(s, key, data, len, err, errlen);
        if (rc != 0) return rc < 0 ? -1 : 0;
        if (now_ms() >= deadline) {
            set_err(err, errlen, "Timed out after %lld ms waiting for key '%s' in the store at (%s, %d): "
                                 "a peer has not arrived or has exited", (long long)timeout_ms, key, s->host, s->port);
            return -1;
        }
        sleep_ms(backoff);
        backoff = backoff < 20 ? backoff * 2 : 20;
    }
}

int dist_store_add(DistStore *s, const char *key, int64_t delta, int64_t *out, char *err, size_t errlen) {
    const void *args[2] = {key, &delta};
    size_t lens[2] = {strlen(key), 8};
    Msg m;
    pthread_mutex_lock(&s->lock);
    int rc = roundtrip(s, CMD_ADD, 2, args, lens, &m, err, errlen);
    if (rc == 0) memcpy(out, m.arg[0], 8);
    pthread_mutex_unlock(&s->lock);
    return rc;
}

int dist_store_check(DistStore *s, const char *const *keys, int n, bool *out, char *err, size_t errlen) {
    if (n > MAX_ARGS) return set_err(err, errlen, "too many keys (at most %d)", MAX_ARGS), -1;
    const void *args[MAX_ARGS];
    size_t lens[MAX_ARGS];
    for (int i = 0; i < n; i++) args[i] = keys[i], lens[i] = strlen(keys[i]);
    Msg m;
    pthread_mutex_lock(&s->lock);
    int rc = roundtrip(s, CMD_CHECK, n, args, lens, &m, err, errlen);
    if (rc == 0) *out = m.arg[0][0] != 0;
    pthread_mutex_unlock(&s->lock);
    return rc;
}

int dist_store_wait(DistStore *s, const char *const *keys, int n, int64_t timeout_ms, char *err, size_t errlen) {
    if (timeout_ms < 0) timeout_ms = s->timeout_ms;
    int64_t deadline = now_ms() + timeout_ms, backoff = 1;
    for (;;) {
        bool all = false;
        if (dist_store_check(s, keys, n, &all, err, errlen) < 0) return -1;
        if (all) return 0;
        if (now_ms() >= deadline) {
            set_err(err, errlen, "Wait timeout after %lld ms for keys ['%s'%s] in the store at (%s, %d): "
                                 "a peer has not arrived or has exited", (long long)timeout_ms, n ? keys[0] : "",
                    n > 1 ? ", ..." : "", s->host, s->port);
            return -1;
        }
        sleep_ms(backoff);
        backoff = backoff < 20 ? backoff * 2 : 20;
    }
}

int dist_store_delete(DistStore *s, const char *key, bool *deleted, char *err, size_t errlen) {
    const void *args[1] = {key};
    size_t lens[1] = {strlen(key)};
    Msg m;
    pthread_mutex_lock(&s->lock);
    int rc = roundtrip(s, CMD_DELETE, 1, args, lens, &m, err, errlen);
    if (rc == 0) *deleted = m.arg[0][0] != 0;
    pthread_mutex_unlock(&s->lock);
    return rc;
}

int dist_store_num_keys(DistStore *s, int64_t *out, char *err, size_t errlen) {
    Msg m;
    pthread_mutex_lock(&s->lock);
    int rc = roundtrip(s, CMD_NUM_KEYS, 0, NULL, NULL, &m, err, errlen);
    if (rc == 0) memcpy(out, m.arg[0], 8);
    pthread_mutex_unlock(&s->lock);
    return rc;
}

int dist_store_compare_set(DistStore *s, const char *key, const void *expected, size_t elen, const void *desired,
                           size_t dlen, void **out, size_t *olen, char *err, size_t errlen) {
    const void *args[3] = {key, expected, desired};
    size_t lens[3] = {strlen(key), elen, dlen};
    Msg m;
    pthread_mutex_lock(&s->lock);
    int rc = roundtrip(s, CMD_COMPARE_SET, 3, args, lens, &m, err, errlen);
    if (rc == 0) {
        *out = malloc(m.len[0] ? m.len[0] : 1);
        if (!*out) {
            rc = -1;
            set_err(err, errlen, "out of memory");
        } else {
            memcpy(*out, m.arg[0], m.len[0]);
            *olen = m.len[0];
        }
    }
    pthread_mutex_unlock(&s->lock);
    return rc;
}

/* ---- backend.h's view of a store ------------------------------------------------------------ */

static int ops_set(void *ctx, const char *key, const void *data, size_t len, char *err, size_t errlen) {
    return dist_store_set(ctx, key, data, len, err, errlen);
}
static int ops_get(void *ctx, const char *key, void **data, size_t *len, int64_t timeout_ms, char *err,
                   size_t errlen) {
    return dist_store_get(ctx, key, data, len, timeout_ms, err, errlen);
}
static int ops_wait(void *ctx, const char *const *keys, int n, int64_t timeout_ms, char *err, size_t errlen) {
    return dist_store_wait(ctx, keys, n, timeout_ms, err, errlen);
}

const DistStoreOps *dist_store_ops(DistStore *s) {
    s->ops = (DistStoreOps){s, ops_set, ops_get, ops_wait};
    return &s->ops;
}
