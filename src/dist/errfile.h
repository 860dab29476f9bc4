/* src/dist/errfile.h — torchrun's per-worker error files (TORCHELASTIC_ERROR_FILE): written by a
 * worker that dies of an uncaught exception, read by the launcher (launch.c). */
#ifndef EMBER_DIST_ERRFILE_H
#define EMBER_DIST_ERRFILE_H

/* Writes the file named by $TORCHELASTIC_ERROR_FILE, if set: message is the exception's last line
 * ("ValueError: bad batch"), callstack the whole traceback as printed. */
void dist_error_file_write(const char *message, const char *callstack);
/* Reads one back: *callstack (malloc'd) and *when (seconds since the epoch).  0, or -1 if the
 * file is absent or unreadable. */
int dist_error_file_read(const char *path, char **callstack, double *when);

#endif
