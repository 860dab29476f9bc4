/* src/dist/launch.h — torchrun's launcher (`ember -m torch.distributed.run`), in C so that it
 * depends on nothing of the script-level standard library. */
#ifndef EMBER_DIST_LAUNCH_H
#define EMBER_DIST_LAUNCH_H

/* argv: torchrun's arguments (options, the script, its arguments), without the program name.
 * Starts the workers, waits for them and returns the exit status (0, 1 if a worker failed, 2 for
 * a usage error). */
int dist_launch_main(int argc, char **argv);

#endif
