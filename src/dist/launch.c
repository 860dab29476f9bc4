/* src/dist/launch.c — torchrun (torch.distributed.run) for Ember: parses torchrun's options
 * (both the 1.13 spellings, --nproc_per_node, and the 2.x ones, --nproc-per-node; each also from
 * its PET_* environment variable), starts one `ember run SCRIPT` per local rank with torchrun's
 * environment (RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR, ...), forwards their output, and
 * watches them.  When a worker fails, the others are stopped (SIGTERM to each worker's process
 * group, SIGKILL after a grace period) and the failure is reported in torchrun's format, with the
 * failed rank's traceback taken from its stderr.  Workers die with the launcher (PDEATHSIG), so
 * nothing outlives a killed launcher.
 *
 * Output: a worker's stdout is the launcher's unless --tee/--redirects asks otherwise; its stderr
 * passes through a pipe (unchanged) so that the last traceback it printed can be reported.
 * With --tee, lines are prefixed "[{role}{local_rank}]:" as torchrun's tail does. */
#include "src/dist/launch.h"

#include <dirent.h>

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "src/dist/errfile.h"

#define MAX_WORKERS 256
#define TAIL_BYTES 16384
#define GRACE_SECONDS 5.0

typedef struct Options {
    int min_nodes, max_nodes, nproc, node_rank, master_port, max_restarts;
    const char *master_addr, *rdzv_backend, *rdzv_endpoint, *rdzv_id, *role, *log_dir;
    const char *redirects, *tee;
    bool standalone, module, no_python;
    int script;                 /* index of the training script in argv */
} Options;

typedef struct Stream {
    int fd;                     /* read end, -1 when closed or inherited */
    int dest;                   /* 1 or 2 */
    bool prefix;                /* --tee: line-prefixed echo */
    bool echo;                  /* shown on the launcher's stream */
    FILE *log;                  /* --redirects / --tee: the log file */
    char *line;                 /* partial line (prefixed mode) */
    size_t nline, capline;
} Stream;

typedef struct Worker {
    pid_t pid;
    int local_rank, rank;
    Stream out, err;
    char tail[TAIL_BYTES];      /* last bytes of stderr */
    size_t ntail;
    bool exited, failed, stopped;
    int status;
    double when;                /* failure time: from the error file, else when it was reaped */
    char error_file[1200];      /* TORCHELASTIC_ERROR_FILE */
    char *callstack;            /* read back from it */
} Worker;

static volatile sig_atomic_t got_signal;
static int wake_pipe[2] = {-1, -1};

/* Workers are reaped in the SIGCHLD handler (waitpid is async-signal-safe), so that each exit is
 * stamped when it happened rather than when the loop gets round to it: a worker killed by a
 * signal leaves no error file, and its death must order before the errors it causes in others. */
typedef struct Exit {
    pid_t pid;
    int status;
    struct timespec when;   /* CLOCK_REALTIME */
} Exit;
static Exit exits[MAX_WORKERS * 2];
static volatile sig_atomic_t n_exits;

static void reap_in_handler(void) {
    pid_t pid;
    int status;
    while (n_exits < (sig_atomic_t)(sizeof exits / sizeof *exits) && (pid = waitpid(-1, &status, WNOHANG)) > 0) {
        Exit *e = &exits[n_exits];
        e->pid = pid;
        e->status = status;
        clock_gettime(CLOCK_REALTIME, &e->when);
        n_exits = n_exits + 1;
    }
}

static void on_signal(int sig) {
    int saved = errno;
    if (sig == SIGCHLD) reap_in_handler();
    else got_signal = sig;
    if (wake_pipe[1] >= 0) {
        char b = 0;
        ssize_t r = write(wake_pipe[1], &b, 1);
        (void)r;
    }
    errno = saved;
}

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void write_all(int fd, const char *p, size_t n) {
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return;
        }
        p += w, n -= (size_t)w;
    }
}

/* ---- options --------------------------------------------------------------------------------- */

static int usage_error(const char *fmt, const char *arg) {
    fprintf(stderr, "usage: torchrun [options] training_script [training_script_args ...]\n"
                    "torchrun: error: ");
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
    return 2;
}

/* The option's name in 1.13 spelling (dashes after the leading "--" become underscores). */
static void canon(const char *arg, char *out, size_t n) {
    size_t i = 0;
    for (; arg[i] && arg[i] != '=' && i + 1 < n; i++) out[i] = (i >= 2 && arg[i] == '-') ? '_' : arg[i];
    out[i] = 0;
}

static const char *env_default(const char *name, const char *dflt) {
    const char *v = getenv(name);
    return v && v[0] ? v : dflt;
}

static int parse_int(const char *s, int *out) {
    char *end;
    long v = strtol(s, &end, 10);
    if (!s[0] || *end) return -1;
    *out = (int)v;
    return 0;
}

static int parse_nnodes(const char *s, Options *o) {
    const char *colon = strchr(s, ':');
    if (!colon) {
        if (parse_int(s, &o->min_nodes) < 0) return -1;
        o->max_nodes = o->min_nodes;
        return 0;
    }
    char a[32];
    snprintf(a, sizeof a, "%.*s", (int)(colon - s), s);
    return parse_int(a, &o->min_nodes) < 0 || parse_int(colon + 1, &o->max_nodes) < 0 ? -1 : 0;
}

static int parse_nproc(const char *s, int *out) {
    if (strcmp(s, "cpu") == 0 || strcmp(s, "auto") == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        *out = n > 0 ? (int)n : 1;
        return 0;
    }
    if (strcmp(s, "gpu") == 0) return -1;
    return parse_int(s, out);
}

static int parse_options(int argc, char **argv, Options *o) {
    const char *nnodes = env_default("PET_NNODES", "1:1"), *nproc = env_default("PET_NPROC_PER_NODE", "1");
    o->node_rank = atoi(env_default("PET_NODE_RANK", "0"));
    o->master_addr = env_default("PET_MASTER_ADDR", "127.0.0.1");
    o->master_port = atoi(env_default("PET_MASTER_PORT", "29500"));
    o->rdzv_backend = env_default("PET_RDZV_BACKEND", "static");
    o->rdzv_endpoint = env_default("PET_RDZV_ENDPOINT", "");
    o->rdzv_id = env_default("PET_RDZV_ID", "none");
    o->role = env_default("PET_ROLE", "default");
    o->log_dir = getenv("PET_LOG_DIR");
    o->redirects = env_default("PET_REDIRECTS", "0");
    o->tee = env_default("PET_TEE", "0");
    o->max_restarts = atoi(env_default("PET_MAX_RESTARTS", "0"));
    o->script = -1;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || strcmp(a, "-") == 0) {
            o->script = i;
            break;
        }
        char name[64];
        canon(a, name, sizeof name);
        const char *eq = strchr(a, '=');
        /* flags without a value */
        if (strcmp(name, "--standalone") == 0) { o->standalone = true; continue; }
        if (strcmp(name, "-m") == 0 || strcmp(name, "--module") == 0) { o->module = true; continue; }
        if (strcmp(name, "--no_python") == 0) { o->no_python = true; continue; }
        if (strcmp(name, "--run_path") == 0) continue;
        if (strcmp(name, "-h") == 0 || strcmp(name, "--help") == 0) {
            printf("usage: torchrun [--nnodes NNODES] [--nproc_per_node NPROC_PER_NODE] [--rdzv_backend RDZV_BACKEND]\n"
                   "                [--rdzv_endpoint RDZV_ENDPOINT] [--rdzv_id RDZV_ID] [--standalone]\n"
                   "                [--max_restarts MAX_RESTARTS] [--role ROLE] [-m] [--no_python] [--log_dir LOG_DIR]\n"
                   "                [-r REDIRECTS] [-t TEE] [--node_rank NODE_RANK] [--master_addr MASTER_ADDR]\n"
                   "                [--master_port MASTER_PORT] training_script ...\n");
            return -1;   /* help printed: nothing to run */
        }
        const char *val = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
        if (!val) return usage_error("argument %s: expected one argument", name);
        int bad = 0;
        if (strcmp(name, "--nnodes") == 0) nnodes = val;
        else if (strcmp(name, "--nproc_per_node") == 0) nproc = val;
        else if (strcmp(name, "--node_rank") == 0) bad = parse_int(val, &o->node_rank);
        else if (strcmp(name, "--master_addr") == 0) o->master_addr = val;
        else if (strcmp(name, "--master_port") == 0) bad = parse_int(val, &o->master_port);
        else if (strcmp(name, "--rdzv_backend") == 0) o->rdzv_backend = val;
        else if (strcmp(name, "--rdzv_endpoint") == 0) o->rdzv_endpoint = val;
        else if (strcmp(name, "--rdzv_id") == 0) o->rdzv_id = val;
        else if (strcmp(name, "--rdzv_conf") == 0 || strcmp(name, "--monitor_interval") == 0 ||
                 strcmp(name, "--start_method") == 0 || strcmp(name, "--local_addr") == 0) { /* accepted */ }
        else if (strcmp(name, "--max_restarts") == 0) bad = parse_int(val, &o->max_restarts);
        else if (strcmp(name, "--role") == 0) o->role = val;
        else if (strcmp(name, "--log_dir") == 0) o->log_dir = val;
        else if (strcmp(name, "-r") == 0 || strcmp(name, "--redirects") == 0) o->redirects = val;
        else if (strcmp(name, "-t") == 0 || strcmp(name, "--tee") == 0) o->tee = val;
        else return usage_error("unrecognized arguments: %s", a);
        if (bad) return usage_error("argument %s: invalid int value", name);
    }
    if (o->script < 0) return usage_error("the following arguments are required: %s", "training_script");
    if (parse_nnodes(nnodes, o) < 0) return usage_error("argument --nnodes: invalid value: '%s'", nnodes);
    if (o->min_nodes != o->max_nodes)
        return usage_error("elastic node counts (--nnodes %s) are not supported by Ember's launcher", nnodes);
    if (parse_nproc(nproc, &o->nproc) < 0 || o->nproc < 1 || o->nproc > MAX_WORKERS)
        return usage_error("argument --nproc_per_node: unsupported value '%s'", nproc);
    if (o->max_restarts < 0) return usage_error("argument --max_restarts: must be >= 0%s", "");
    if (strcmp(o->rdzv_backend, "static") != 0 && strcmp(o->rdzv_backend, "c10d") != 0)
        return usage_error("rendezvous backend '%s' is not supported (static or c10d)", o->rdzv_backend);
    return 0;
}

/* -r/-t: "3" for every rank or "0:3,1:0" per local rank -> the bits for one rank (1 out, 2 err) */
static int std_bits(const char *spec, int local_rank) {
    if (!strchr(spec, ':')) return atoi(spec) & 3;
    for (const char *p = spec; *p;) {
        int r = atoi(p);
        const char *c = strchr(p, ':');
        if (!c) break;
        if (r == local_rank) return atoi(c + 1) & 3;
        const char *comma = strchr(c, ',');
        if (!comma) break;
        p = comma + 1;
    }
    return 0;
}

static int free_port(void) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t l = sizeof a;
    int port = 29500;
    if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 && getsockname(fd, (struct sockaddr *)&a, &l) == 0)
        port = ntohs(a.sin_port);
    if (fd >= 0) close(fd);
    return port;
}

/* ---- workers --------------------------------------------------------------------------------- */

static void setenv_int(const char *k, long v) {
    char b[32];
    snprintf(b, sizeof b, "%ld", v);
    setenv(k, b, 1);
}

static void mkdirs(const char *path) {
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            mkdir(buf, 0755);
            *p = '/';
        }
    mkdir(buf, 0755);
}

static int open_stream(Stream *s, int dest, int redirect, int tee, const char *logdir, int local_rank,
                       int pipefd[2]) {
    s->dest = dest;
    s->fd = -1;
    s->echo = true;
    if (dest == 2 || redirect || tee) {
        if (pipe2(pipefd, O_CLOEXEC) < 0) return -1;
        s->fd = pipefd[0];
        s->prefix = tee;
        s->echo = !redirect || tee;
        if ((redirect || tee) && logdir) {
            char path[1200];
            snprintf(path, sizeof path, "%s/%d", logdir, local_rank);
            mkdirs(path);
            snprintf(path, sizeof path, "%s/%d/%s.log", logdir, local_rank, dest == 1 ? "stdout" : "stderr");
            s->log = fopen(path, "w");
        }
    }
    return 0;
}

static int spawn(Worker *w, const Options *o, int world_size, int restart, int argc, char **argv,
                 const char *logdir, const char *errdir) {
    int outp[2] = {-1, -1}, errp[2] = {-1, -1};
    snprintf(w->error_file, sizeof w->error_file, "%s/%d", errdir, w->local_rank);
    mkdirs(w->error_file);
    snprintf(w->error_file, sizeof w->error_file, "%s/%d/error.json", errdir, w->local_rank);
    unlink(w->error_file);
    int redir = std_bits(o->redirects, w->local_rank), tee = std_bits(o->tee, w->local_rank);
    if (open_stream(&w->out, 1, redir & 1, tee & 1, logdir, w->local_rank, outp) < 0 ||
        open_stream(&w->err, 2, redir & 2, tee & 2, logdir, w->local_rank, errp) < 0) {
        perror("torchrun: pipe");
        return -1;
    }
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        perror("torchrun: fork");
        return -1;
    }
    if (pid == 0) {
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(1);   /* the launcher died before we got here */
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGCHLD, SIG_DFL);
        if (outp[1] >= 0) dup2(outp[1], 1);
        if (errp[1] >= 0) dup2(errp[1], 2);
        setenv_int("LOCAL_RANK", w->local_rank);
        setenv_int("RANK", w->rank);
        setenv_int("GROUP_RANK", o->node_rank);
        setenv_int("ROLE_RANK", w->rank);
        setenv("ROLE_NAME", o->role, 1);
        setenv_int("LOCAL_WORLD_SIZE", o->nproc);
        setenv_int("WORLD_SIZE", world_size);
        setenv_int("GROUP_WORLD_SIZE", o->min_nodes);
        setenv_int("ROLE_WORLD_SIZE", world_size);
        setenv("MASTER_ADDR", o->master_addr, 1);
        setenv_int("MASTER_PORT", o->master_port);
        setenv_int("TORCHELASTIC_RESTART_COUNT", restart);
        setenv_int("TORCHELASTIC_MAX_RESTARTS", o->max_restarts);
        setenv("TORCHELASTIC_RUN_ID", o->rdzv_id, 1);
        setenv("TORCHELASTIC_USE_AGENT_STORE", "False", 1);
        setenv("TORCHELASTIC_ERROR_FILE", w->error_file, 1);
        if (!getenv("NCCL_ASYNC_ERROR_HANDLING")) setenv("NCCL_ASYNC_ERROR_HANDLING", "1", 1);
        int n = argc - o->script;
        char **args = calloc((size_t)n + 4, sizeof(char *));
        int k = 0;
        const char *exe = "/proc/self/exe";
        if (o->no_python) {
            exe = argv[o->script];
        } else {
            args[k++] = "ember";
            args[k++] = o->module ? "-m" : "run";
        }
        for (int i = o->script; i < argc; i++) args[k++] = argv[i];
        if (o->no_python) args[0] = argv[o->script];
        execv(exe, args);
        fprintf(stderr, "torchrun: cannot execute %s: %s\n", exe, strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid);
    w->pid = pid;
    if (outp[1] >= 0) close(outp[1]);
    if (errp[1] >= 0) close(errp[1]);
    return 0;
}

static void emit(Worker *w, Stream *s, const char *role, const char *p, size_t n) {
    if (s->dest == 2) {   /* keep the tail of stderr for the failure report */
        if (n >= TAIL_BYTES) {
            memcpy(w->tail, p + n - TAIL_BYTES, TAIL_BYTES);
            w->ntail = TAIL_BYTES;
        } else {
            if (w->ntail + n > TAIL_BYTES) {
                size_t drop = w->ntail + n - TAIL_BYTES;
                memmove(w->tail, w->tail + drop, w->ntail - drop);
                w->ntail -= drop;
            }
            memcpy(w->tail + w->ntail, p, n);
            w->ntail += n;
        }
    }
    if (s->log) fwrite(p, 1, n, s->log);
    if (!s->echo) return;
    if (!s->prefix) {
        write_all(s->dest, p, n);
        return;
    }
    char head[96];
    int hl = snprintf(head, sizeof head, "[%s%d]:", role, w->local_rank);
    for (size_t i = 0; i < n; i++) {
        if (s->nline == s->capline) {
            s->capline = s->capline ? s->capline * 2 : 256;
            s->line = realloc(s->line, s->capline);
            if (!s->line) return;
        }
        s->line[s->nline++] = p[i];
        if (p[i] == '\n') {
            write_all(s->dest, head, (size_t)hl);
            write_all(s->dest, s->line, s->nline);
            s->nline = 0;
        }
    }
}

static void close_stream(Worker *w, Stream *s, const char *role) {
    if (s->prefix && s->nline) emit(w, s, role, "\n", 1);
    if (s->fd >= 0) close(s->fd);
    s->fd = -1;
    if (s->log) fclose(s->log);
    s->log = NULL;
    free(s->line);
    s->line = NULL;
    s->nline = s->capline = 0;
}

/* Reads what is ready on one stream; closes it at end of file. */
static void pump(Worker *w, Stream *s, const char *role) {
    char buf[65536];
    ssize_t r = read(s->fd, buf, sizeof buf);
    if (r > 0) emit(w, s, role, buf, (size_t)r);
    else if (r == 0 || (errno != EINTR && errno != EAGAIN)) close_stream(w, s, role);
}

/* ---- failure report (torchrun's ChildFailedError) ------------------------------------------ */

static const char *signame(int sig) {
    switch (sig) {
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGSEGV: return "SIGSEGV";
    case SIGABRT: return "SIGABRT";
    case SIGINT: return "SIGINT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    default: return "signal";
    }
}

/* The failure's message: the last traceback the worker printed, indented, or torchrun's texts. */
static void failure_message(const Worker *w, char *out, size_t n) {
    if (w->callstack) {   /* from the error file: the traceback as the worker printed it */
        size_t k = 0;
        for (const char *p = w->callstack; *p && k + 4 < n; p++) {
            out[k++] = *p;
            if (*p == '\n') out[k++] = ' ', out[k++] = ' ';
        }
        out[k] = 0;
        return;
    }
    if (WIFSIGNALED(w->status)) {
        snprintf(out, n, "Signal %d (%s) received by PID %d", WTERMSIG(w->status), signame(WTERMSIG(w->status)),
                 (int)w->pid);
        return;
    }
    const char *start = NULL, *key = "Traceback (most recent call last):";
    for (size_t i = 0; i + strlen(key) <= w->ntail; i++)
        if (memcmp(w->tail + i, key, strlen(key)) == 0) start = w->tail + i;
    if (!start) {
        snprintf(out, n, "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html");
        return;
    }
    size_t len = (size_t)(w->tail + w->ntail - start), k = 0;
    while (len && (start[len - 1] == '\n' || start[len - 1] == ' ')) len--;
    for (size_t i = 0; i < len && k + 4 < n; i++) {
        out[k++] = start[i];
        if (start[i] == '\n') out[k++] = ' ', out[k++] = ' ';
    }
    out[k] = 0;
}

static int format_failure(char *buf, size_t n, int idx, const Worker *w, const char *host) {
    char when[64], msg[TAIL_BYTES * 2];
    struct tm tm;
    time_t secs = (time_t)w->when;
    localtime_r(&secs, &tm);
    strftime(when, sizeof when, "%Y-%m-%d_%H:%M:%S", &tm);
    failure_message(w, msg, sizeof msg);
    int code = WIFSIGNALED(w->status) ? -WTERMSIG(w->status) : WEXITSTATUS(w->status);
    return snprintf(buf, n,
                    "[%d]:\n  time      : %s\n  host      : %s\n  rank      : %d (local_rank: %d)\n"
                    "  exitcode  : %d (pid: %d)\n  error_file: %s\n  traceback : %s",
                    idx, when, host, w->rank, w->local_rank, code, (int)w->pid,
                    w->callstack ? w->error_file : "<N/A>", msg);
}

static int line_width(const char *s) {
    int best = 0, cur = 0;
    for (; *s; s++) {
        if (*s == '\n') best = cur > best ? cur : best, cur = 0;
        else cur++;
    }
    return cur > best ? cur : best;
}

static bool is_symptom(const Worker *w) {
    return w->callstack && strstr(w->callstack, "a peer process may have exited or stopped responding");
}

static void report(Worker *ws, int n, const char *script) {
    char host[256] = "localhost";
    gethostname(host, sizeof host);
    /* the first failure, but one that only reports a peer's death (Ember's collectives say so)
     * comes after the failure that caused it even when it was seen first */
    int root = -1;
    for (int i = 0; i < n; i++) {
        if (!ws[i].failed) continue;
        bool sym = is_symptom(&ws[i]);
        bool root_sym = root >= 0 && is_symptom(&ws[root]);
        if (root < 0 || (root_sym && !sym) || (sym == root_sym && ws[i].when < ws[root].when)) root = i;
    }
    if (root < 0) return;
    int code = WIFSIGNALED(ws[root].status) ? -WTERMSIG(ws[root].status) : WEXITSTATUS(ws[root].status);
    fprintf(stderr, "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: %d) local_rank: %d "
                    "(pid: %d) of binary: ember\n", code, ws[root].local_rank, (int)ws[root].pid);
    size_t cap = (size_t)(n + 1) * TAIL_BYTES * 3;
    char *root_s = malloc(TAIL_BYTES * 3), *others = malloc(cap);
    if (!root_s || !others) {
        free(root_s);
        free(others);
        return;
    }
    others[0] = 0;
    size_t olen = 0;
    char title[1100];
    snprintf(title, sizeof title, "%s FAILED", script);
    int width = (int)strlen(title), idx = 0;
    for (int i = 0; i < n; i++) {
        if (!ws[i].failed) continue;
        char *dst = i == root ? root_s : others + olen;
        size_t room = i == root ? TAIL_BYTES * 3 : cap - olen;
        if (i != root && olen) {
            *dst++ = '\n';
            room--, olen++;
        }
        int l = format_failure(dst, room, idx++, &ws[i], host);
        int wdt = line_width(dst);
        width = wdt > width ? wdt : width;
        if (i != root) olen += (size_t)(l < (int)room ? l : (int)room - 1);
    }
    if (width > 60) width = 60;
    char border[61], section[61];
    memset(border, '=', (size_t)width), border[width] = 0;
    memset(section, '-', (size_t)width), section[width] = 0;
    fprintf(stderr, "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n%s\n%s\n%s\nFailures:\n%s\n"
                    "%s\nRoot Cause (first observed failure):\n%s\n%s\n",
            border, title, section, olen ? others : "  <NO_OTHER_FAILURES>", section, root_s, border);
    free(root_s);
    free(others);
}

static void remove_tree(const char *path) {
    DIR *d = opendir(path);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
            char sub[1300];
            snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
            remove_tree(sub);
        }
        closedir(d);
    }
    remove(path);
}

/* ---- the run --------------------------------------------------------------------------------- */

/* Signals the workers still running.  One that has exited but is not reaped yet (a zombie) is
 * left alone, so that its own death is not later taken for ours. */
static void signal_all(Worker *ws, int n, int sig) {
    for (int i = 0; i < n; i++) {
        if (ws[i].exited || ws[i].pid <= 0) continue;
        siginfo_t info;
        memset(&info, 0, sizeof info);
        if (waitid(P_PID, (id_t)ws[i].pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == ws[i].pid)
            continue;
        kill(-ws[i].pid, sig);
        kill(ws[i].pid, sig);
        ws[i].stopped = true;
    }
}

/* One attempt: start the workers, watch them; 0 if all succeeded, 1 if one failed, -1 if the
 * launcher was signalled. */
static int run_attempt(const Options *o, int argc, char **argv, int restart, const char *logroot,
                       const char *errroot) {
    int world = o->nproc * o->min_nodes;
    Worker *ws = calloc((size_t)o->nproc, sizeof *ws);
    if (!ws) return 1;
    char logdir[1100] = "";
    if (logroot) snprintf(logdir, sizeof logdir, "%s/attempt_%d", logroot, restart);
    char errdir[1100];
    snprintf(errdir, sizeof errdir, "%s/attempt_%d", errroot, restart);
    int rc = 0, alive = 0;
    for (int i = 0; i < o->nproc; i++) {
        ws[i].local_rank = i;
        ws[i].rank = o->node_rank * o->nproc + i;
        if (spawn(&ws[i], o, world, restart, argc, argv, logroot ? logdir : NULL, errdir) < 0) {
            signal_all(ws, i, SIGKILL);
            rc = 1;
            break;
        }
        alive++;
    }
    double kill_at = 0;
    bool stopping = rc != 0;
    struct pollfd fds[2 * MAX_WORKERS + 1];
    Stream *owners[2 * MAX_WORKERS + 1];
    Worker *wowners[2 * MAX_WORKERS + 1];
    for (;;) {
        int nf = 0;
        fds[nf++] = (struct pollfd){wake_pipe[0], POLLIN, 0};
        for (int i = 0; i < o->nproc; i++) {
            Stream *ss[2] = {&ws[i].out, &ws[i].err};
            for (int k = 0; k < 2; k++)
                if (ss[k]->fd >= 0) {
                    owners[nf] = ss[k];
                    wowners[nf] = &ws[i];
                    fds[nf++] = (struct pollfd){ss[k]->fd, POLLIN, 0};
                }
        }
        if (alive == 0 && nf == 1) break;
        int timeout = stopping ? 100 : (alive == 0 ? 2000 : -1);
        int pr = poll(fds, (nfds_t)nf, timeout);
        if (pr < 0 && errno != EINTR) break;
        if (pr > 0 && (fds[0].revents & POLLIN)) {
            char b[64];
            while (read(wake_pipe[0], b, sizeof b) > 0) {}
        }
        for (int k = 1; pr > 0 && k < nf; k++)
            if (fds[k].revents) pump(wowners[k], owners[k], o->role);
        sigset_t chld, old;
        sigemptyset(&chld);
        sigaddset(&chld, SIGCHLD);
        sigprocmask(SIG_BLOCK, &chld, &old);
        reap_in_handler();   /* whatever exited since the last signal */
        int n = n_exits;
        Exit got[MAX_WORKERS * 2];
        memcpy(got, exits, sizeof(Exit) * (size_t)n);
        n_exits = 0;
        /* SIGCHLD stays blocked until the verdicts and any signals are done: a worker that dies
         * meanwhile stays a zombie, which signal_all recognises */
        /* first every exit of the batch, then the verdicts: a worker that died on its own in the
         * same instant as another must not be taken for one our SIGTERM stopped */
        Worker *batch[MAX_WORKERS * 2];
        int nb = 0;
        for (int e = 0; e < n; e++)
            for (int i = 0; i < o->nproc; i++) {
                Worker *w = &ws[i];
                if (w->pid != got[e].pid || w->exited) continue;
                w->exited = true;
                w->status = got[e].status;
                w->when = (double)got[e].when.tv_sec + (double)got[e].when.tv_nsec * 1e-9;
                batch[nb++] = w;
                alive--;
            }
        bool start_stopping = false;
        for (int b = 0; b < nb; b++) {
            Worker *w = batch[b];
            int status = w->status;
            double t = 0;
            bool has_error_file = dist_error_file_read(w->error_file, &w->callstack, &t) == 0;
            if (has_error_file && t > 0 && t < w->when) w->when = t;
            bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
            /* a worker our signal ended is not a failure of its own, unless it had already failed
             * (its error file says when: it may have been tearing down) */
            bool ended_by_us = w->stopped && WIFSIGNALED(status) &&
                               (WTERMSIG(status) == SIGTERM || WTERMSIG(status) == SIGKILL);
            if (!ok && (!ended_by_us || has_error_file)) {
                w->failed = true;
                rc = 1;
                start_stopping = true;
            }
        }
        if (start_stopping && !stopping) {
            stopping = true;
            kill_at = now_s() + GRACE_SECONDS;
            signal_all(ws, o->nproc, SIGTERM);
        }
        sigprocmask(SIG_SETMASK, &old, NULL);
        if (got_signal && !stopping) {
            stopping = true;
            rc = -1;
            kill_at = now_s() + GRACE_SECONDS;
            signal_all(ws, o->nproc, SIGTERM);
        }
        if (stopping && kill_at > 0 && now_s() > kill_at) {
            signal_all(ws, o->nproc, SIGKILL);
            kill_at = 0;
        }
        if (alive == 0 && pr == 0) {   /* exited, pipes held open by someone else: stop reading */
            for (int i = 0; i < o->nproc; i++) {
                close_stream(&ws[i], &ws[i].out, o->role);
                close_stream(&ws[i], &ws[i].err, o->role);
            }
        }
    }
    for (int i = 0; i < o->nproc; i++) {
        close_stream(&ws[i], &ws[i].out, o->role);
        close_stream(&ws[i], &ws[i].err, o->role);
    }
    if (rc == 1 && restart >= o->max_restarts) report(ws, o->nproc, argv[o->script]);
    for (int i = 0; i < o->nproc; i++) free(ws[i].callstack);
    free(ws);
    return rc;
}

int dist_launch_main(int argc, char **argv) {
    Options o = {0};
    int rc = parse_options(argc, argv, &o);
    if (rc) return rc < 0 ? 0 : rc;
    char endpoint_host[256];
    if (o.standalone) {
        o.master_addr = "127.0.0.1";
        o.master_port = free_port();
        o.rdzv_id = "standalone";
    } else if (o.rdzv_endpoint[0]) {
        const char *colon = strrchr(o.rdzv_endpoint, ':');
        snprintf(endpoint_host, sizeof endpoint_host, "%.*s",
                 (int)(colon ? colon - o.rdzv_endpoint : (long)strlen(o.rdzv_endpoint)), o.rdzv_endpoint);
        o.master_addr = endpoint_host;
        if (colon && parse_int(colon + 1, &o.master_port) < 0)
            return usage_error("invalid --rdzv_endpoint '%s'", o.rdzv_endpoint);
        if (!colon) o.master_port = 29400;
    }
    if (o.nproc > 1 && !getenv("OMP_NUM_THREADS")) {
        fprintf(stderr, "WARNING:__main__:\n*****************************************\n"
                        "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to "
                        "avoid your system being overloaded, please further tune the variable for optimal "
                        "performance in your application as needed. \n*****************************************\n");
        setenv("OMP_NUM_THREADS", "1", 1);
    }
    fflush(stdout);
    fflush(stderr);
    if (pipe2(wake_pipe, O_CLOEXEC | O_NONBLOCK) < 0) return 1;
    struct sigaction sa = {0}, old_int, old_term, old_chld;
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    sigaction(SIGCHLD, &sa, &old_chld);
    char logroot[1100];
    const char *lr = NULL;
    if (o.log_dir) {
        snprintf(logroot, sizeof logroot, "%s/%s", o.log_dir, o.rdzv_id);
        lr = logroot;
    }
    char errroot[] = "/tmp/torchelastic_XXXXXX";
    if (!mkdtemp(errroot)) {
        perror("torchrun: mkdtemp");
        return 1;
    }
    int status = 0;
    for (int restart = 0;; restart++) {
        int r = run_attempt(&o, argc, argv, restart, lr, errroot);
        if (r == 0) break;
        if (r < 0 || restart >= o.max_restarts) {
            status = 1;
            break;
        }
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGCHLD, &old_chld, NULL);
    close(wake_pipe[0]);
    close(wake_pipe[1]);
    wake_pipe[0] = wake_pipe[1] = -1;
    remove_tree(errroot);
    return status;
}
