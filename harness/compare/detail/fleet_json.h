/* fleet_json.h - read a few values out of a run's meta.json by key path.
 *
 * The fleet report needs seven values of meta.json (complete, host name and
 * CPU, device name and UUID, the PCIe link). compare_load.c's substring
 * search would take "name" from whichever object comes first, so this walks
 * the object structure: "device.pcie.width" is the key "width" of the object
 * under "pcie" of the object under "device", at the top level. The walk is
 * iterative (no recursion: a hostile file nested a million deep costs one
 * pass and no stack) and stops at the text's NUL: a truncated or malformed
 * file gives "not found", never a read past the end.
 */
#ifndef CB_FLEET_JSON_H
#define CB_FLEET_JSON_H

#include "cb_common.h"

/* The first character of the value at `path` (keys joined by '.') in the
 * NUL-terminated JSON text, or NULL when a key is absent, a value on the way
 * is not an object, or the text is malformed before the value. */
const char *cb_fleet_json_find(const char *json, const char *path);

/* The `index`-th (0-based) element of the array at `path`, or NULL when
 * there is no such element (or no array there). The element's text runs on
 * past it: give it to the functions here with a path inside it. */
const char *cb_fleet_json_item(const char *json, const char *path, int index);

/* The value at `path` as a string (escapes \" \\ \/ \n \t kept as the
 * character, \uXXXX as '?'), truncated to len - 1 bytes. False when absent
 * or not a string (null included); `out` is then "". */
bool cb_fleet_json_string(const char *json, const char *path, char *out, size_t len);

/* The value at `path` as a number. False when absent or not a number. */
bool cb_fleet_json_number(const char *json, const char *path, double *out);

/* The value at `path`: 1 for true, 0 for false, -1 when absent or not a
 * boolean. */
int cb_fleet_json_bool(const char *json, const char *path);

#endif
