/* compare_cli.h - `cubench compare`: the command line of the comparison.
 *
 *   cubench compare [OPTIONS] BASE_DIR NEW_DIR
 *   cubench compare [OPTIONS] BASE_DIR... -- NEW_DIR...
 *   cubench compare [OPTIONS] --base DIR [--base DIR]... --new DIR [--new DIR]...
 *   cubench compare --calibrate [OPTIONS] A_DIR... [--] B_DIR... -o FILE
 *
 * Markdown goes to stdout (or --markdown FILE), the CSV to --csv FILE, and
 * every other line to stderr. docs/compare.md describes the method.
 */
#ifndef CB_COMPARE_CLI_H
#define CB_COMPARE_CLI_H

/* Run the command; argv[0] is "compare". Returns the process exit code:
 * 0 (CB_EXIT_OK) when no point is slower, or --fail-on none;
 * 1 (CB_EXIT_FAILURES) when at least one point is slower;
 * 2 (CB_EXIT_USAGE) for a bad command line, an unreadable or invalid run
 * directory or calibration, or when no point could be tested (none timed on
 * both sides). --help prints the usage to stdout and returns 0;
 * --calibrate returns 0 once the file is written. */
int cb_compare_main(int argc, char **argv);

#endif
