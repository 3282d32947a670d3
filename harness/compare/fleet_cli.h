/* fleet_cli.h - `cubench fleet DIR`: the command line of the fleet report.
 *
 * The markdown report goes to stdout (and to --markdown FILE), the CSV to
 * --csv FILE, every other line to stderr. docs/fleet.md describes the
 * workflow (scripts/slurm/) and the method.
 */
#ifndef CB_FLEET_CLI_H
#define CB_FLEET_CLI_H

/* Run the command; argv[0] is "fleet". Returns the process exit code:
 * 0 (CB_EXIT_OK) when no run is flagged and nothing failed;
 * 1 (CB_EXIT_FAILURES) when a run is flagged (slow, fast or missing figure)
 *   or there is a problem (a failed, killed or never-started task, an
 *   incomplete run, a run with failed points);
 * 2 (CB_EXIT_USAGE) for a bad command line, a missing directory, one that
 *   holds no run, or an unreadable or malformed complete run.
 * --help prints the usage to stdout and returns 0. */
int cb_fleet_main(int argc, char **argv);

#endif
