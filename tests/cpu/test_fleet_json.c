/* test_fleet_json.c - key-path lookup in meta.json texts: nested objects,
 * keys of the same name at other levels, strings with escapes, null and
 * non-object values on the way, and malformed, truncated and hostile input
 * (deep nesting, no NUL before the end is never read past). */
/* test links: cubench_compare */
#include "fleet_json.h"

#include "cb_test.h"

#include <stdlib.h>

static const char *const META =
    "{\n  \"schema_version\": 1,\n  \"build\": {\"type\": \"Release\", \"name\": \"wrong\"},\n"
    "  \"complete\": true,\n  \"interrupted\": false,\n"
    "  \"command_line\": [\"cubench\", \"run\", {\"name\": \"in an array\"}],\n"
    "  \"host\": {\"hostname\": \"node07\", \"cpu\": \"Test \\\"CPU\\\" \\\\ x\\u00e9y\"},\n"
    "  \"device\": {\"name\": \"NVIDIA H200\", \"uuid\": \"GPU-1234\",\n"
    "    \"pcie\": {\"generation\": 5, \"width\": 16, \"source\": \"sysfs, with {braces}\"}}\n}\n";

static void test_paths(void)
{
    char s[64];
    double v = 0;
    CB_CHECK(cb_fleet_json_string(META, "device.name", s, sizeof s));
    CB_CHECK_STR(s, "NVIDIA H200");
    CB_CHECK(cb_fleet_json_string(META, "host.hostname", s, sizeof s));
    CB_CHECK_STR(s, "node07");
    CB_CHECK(cb_fleet_json_string(META, "host.cpu", s, sizeof s));
    CB_CHECK_STR(s, "Test \"CPU\" \\ x?y");
    CB_CHECK(cb_fleet_json_number(META, "device.pcie.width", &v));
    CB_CHECK_NEAR(v, 16, 0);
    CB_CHECK(cb_fleet_json_number(META, "device.pcie.generation", &v));
    CB_CHECK_NEAR(v, 5, 0);
    CB_CHECK(cb_fleet_json_number(META, "schema_version", &v));
    CB_CHECK_EQ_INT(cb_fleet_json_bool(META, "complete"), 1);
    CB_CHECK_EQ_INT(cb_fleet_json_bool(META, "interrupted"), 0);
    /* absent keys, wrong types, a path through a non-object */
    CB_CHECK_EQ_INT(cb_fleet_json_bool(META, "finished"), -1);
    CB_CHECK_EQ_INT(cb_fleet_json_bool(META, "schema_version"), -1);
    CB_CHECK(!cb_fleet_json_string(META, "name", s, sizeof s)); /* not at the top */
    CB_CHECK_STR(s, "");
    CB_CHECK(!cb_fleet_json_string(META, "device.pcie.width", s, sizeof s));
    CB_CHECK(!cb_fleet_json_number(META, "device.name", &v));
    CB_CHECK(!cb_fleet_json_number(META, "device.name.x", &v));
    CB_CHECK(cb_fleet_json_find(META, "device.pcie.source.x") == NULL);
    CB_CHECK(cb_fleet_json_find(META, "device.pcie.missing") == NULL);
    /* truncation keeps a NUL-terminated prefix */
    char small[5];
    CB_CHECK(cb_fleet_json_string(META, "device.name", small, sizeof small));
    CB_CHECK_STR(small, "NVID");
}

static void test_arrays(void)
{
    const char *meta = "{\"device\": {\"name\": \"A\"}, \"devices\": [ {\"ordinal\": 0, \"name\": "
                       "\"A\", \"pcie\": {\"width\": 16}}, {\"ordinal\": 1, \"name\": \"B [x]\"} ],"
                       " \"empty\": [], \"nums\": [1, [2, 3], \"4\"]}";
    char s[32];
    double v = 0;
    const char *d0 = cb_fleet_json_item(meta, "devices", 0);
    const char *d1 = cb_fleet_json_item(meta, "devices", 1);
    CB_CHECK(d0 && d1);
    CB_CHECK(cb_fleet_json_item(meta, "devices", 2) == NULL);
    CB_CHECK(cb_fleet_json_item(meta, "devices", -1) == NULL);
    CB_CHECK(cb_fleet_json_item(meta, "empty", 0) == NULL);
    CB_CHECK(cb_fleet_json_item(meta, "device", 0) == NULL); /* an object */
    CB_CHECK(cb_fleet_json_item(meta, "missing", 0) == NULL);
    if (d0 && d1) {
        CB_CHECK(cb_fleet_json_string(d1, "name", s, sizeof s));
        CB_CHECK_STR(s, "B [x]");
        CB_CHECK(cb_fleet_json_number(d1, "ordinal", &v));
        CB_CHECK_NEAR(v, 1, 0);
        CB_CHECK(cb_fleet_json_number(d0, "pcie.width", &v));
        CB_CHECK_NEAR(v, 16, 0);
        CB_CHECK(cb_fleet_json_find(d1, "pcie") == NULL); /* not d0's */
    }
    const char *n2 = cb_fleet_json_item(meta, "nums", 2);
    CB_CHECK(n2 && *n2 == '"');
    CB_CHECK(cb_fleet_json_item("[1, 2", "", 1) != NULL);
    CB_CHECK(cb_fleet_json_item("[1, 2", "", 2) == NULL);
    CB_CHECK(cb_fleet_json_item("[1 2]", "", 1) == NULL);
}

static void test_null_device(void)
{
    const char *cpu_only = "{\"device\": null, \"no_device_reason\": \"none\", \"host\": {}}";
    char s[32];
    CB_CHECK(cb_fleet_json_find(cpu_only, "device.name") == NULL);
    CB_CHECK(cb_fleet_json_find(cpu_only, "device") != NULL);
    CB_CHECK(!cb_fleet_json_string(cpu_only, "device", s, sizeof s));
    CB_CHECK(cb_fleet_json_find(cpu_only, "host.cpu") == NULL);
}

static void test_malformed(void)
{
    static const char *const bad[] = {
        "",
        "   ",
        "[1, 2]",
        "{\"device\": {\"name\": \"unterminated",
        "{\"device\" {\"name\": \"x\"}}",
        "{\"a\": 1 \"device\": {\"name\": \"x\"}}",
        "{\"a\": \"\\",
        "{\"a\": {\"b\": [1, 2, {\"c\": \"}\"}]",
        "{\"a\": , \"device\": {\"name\": \"x\"}}",
        "{'device': {'name': 'x'}}",
    };
    char s[32];
    for (int i = 0; i < CB_ARRAY_LEN(bad); i++) {
        CB_CHECK(!cb_fleet_json_string(bad[i], "device.name", s, sizeof s));
        CB_CHECK_EQ_INT(cb_fleet_json_bool(bad[i], "a"), -1);
    }
    /* a value before the damage is still found */
    CB_CHECK(cb_fleet_json_string("{\"a\": \"ok\", \"b\": [", "a", s, sizeof s));
    CB_CHECK_STR(s, "ok");
}

/* A million nested arrays before the key: skipped in one pass, no stack. */
static void test_deep_nesting(void)
{
    size_t depth = 1000000;
    char *text = malloc(2 * depth + 64);
    CB_CHECK(text != NULL);
    if (!text) return;
    size_t o = 0;
    o += (size_t)sprintf(text + o, "{\"deep\": ");
    for (size_t i = 0; i < depth; i++)
        text[o++] = '[';
    for (size_t i = 0; i < depth; i++)
        text[o++] = ']';
    sprintf(text + o, ", \"complete\": true}");
    CB_CHECK_EQ_INT(cb_fleet_json_bool(text, "complete"), 1);
    text[o - 1] = '\0'; /* unbalanced: one ']' short, then the end */
    CB_CHECK_EQ_INT(cb_fleet_json_bool(text, "complete"), -1);
    free(text);
}

int main(void)
{
    test_paths();
    test_arrays();
    test_null_device();
    test_malformed();
    test_deep_nesting();
    return cb_test_finish("test_fleet_json");
}
