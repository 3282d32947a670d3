/* test_clock_lock.c - the opt-in SM clock lock against tests/fake_nvml:
 * a lock reaches every sampled GPU and is reset by the end of the run;
 * refused permission and a clock above the maximum are clear failures that
 * leave nothing locked; a process that exits, or dies on a second Ctrl-C,
 * with the lock held still resets it; meta.json's clock_lock says what
 * was asked and whether the reset went through. */
/* test links: cubench_engine */
#include "cb_test.h"
#include "test_fake_nvml.h"
#include "json_writer.h"
#include "signals.h"
#include "telemetry.h"

#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char log_path[256];

static cb_telemetry *open_fake(const char *script)
{
    return fake_nvml_open(script, 0.01);
}

/* The fake's log of lock and reset calls, one line each. */
static void read_log(char *out, size_t cap)
{
    out[0] = '\0';
    FILE *f = fopen(log_path, "r");
    if (!f) return;
    size_t n = fread(out, 1, cap - 1, f);
    out[n] = '\0';
    fclose(f);
}

static void lock_json(const cb_telemetry *t, char *out, size_t cap)
{
    char *buf = fake_nvml_json(cb_telemetry_write_lock_json, t);
    snprintf(out, cap, "%s", buf ? buf : "");
    free(buf);
}

/* A fresh log, the fake opened with `script`, and a lock at `mhz` that must
 * answer `want`; *resets (when asked) counts the reset calls before it. */
static cb_telemetry *lock_fresh(const char *script, int mhz, cb_status want, long *resets,
                                cb_msg *why)
{
    remove(log_path);
    cb_telemetry *t = open_fake(script);
    if (resets) *resets = fake_calls("nvmlDeviceResetGpuLockedClocks");
    CB_CHECK(cb_telemetry_lock_clocks(t, mhz, why) == want);
    return t;
}

static void test_lock_and_reset(void)
{
    cb_msg why = {{0}};
    long resets;
    cb_telemetry *t = lock_fresh("max_clock_sm=1980", 1500, CB_OK, &resets, &why);
    char log[512];
    read_log(log, sizeof log);
    CB_CHECK_STR(log, "lock " FAKE_UUID " 1500\n");
    char json[512];
    lock_json(t, json, sizeof json);
    CB_CHECK(strstr(json, "\"sm_mhz\": 1500") != NULL);
    CB_CHECK(strstr(json, "\"held\": true") != NULL);

    cb_telemetry_unlock_clocks(t);
    cb_telemetry_unlock_clocks(t); /* twice: the second is a no-op */
    read_log(log, sizeof log);
    CB_CHECK_STR(log, "lock " FAKE_UUID " 1500\nreset " FAKE_UUID " 0\n");
    CB_CHECK_EQ_INT(fake_calls("nvmlDeviceResetGpuLockedClocks"), resets + 1);
    lock_json(t, json, sizeof json);
    CB_CHECK(strstr(json, "\"held\": false") != NULL);
    CB_CHECK(strstr(json, "\"reset_ok\": true") != NULL);
    cb_telemetry_close(t); /* nothing left to reset */
    CB_CHECK_EQ_INT(fake_calls("nvmlDeviceResetGpuLockedClocks"), resets + 1);
}

static void test_close_resets(void)
{
    cb_msg why = {{0}};
    cb_telemetry *t = lock_fresh("max_clock_sm=1980", 1200, CB_OK, NULL, &why);
    cb_telemetry_close(t);
    char log[512];
    read_log(log, sizeof log);
    CB_CHECK_STR(log, "lock " FAKE_UUID " 1200\nreset " FAKE_UUID " 0\n");
}

static void test_refused(void)
{
    /* NVML_ERROR_NO_PERMISSION (4): not root, clocks not unrestricted. */
    cb_msg why = {{0}};
    long resets;
    cb_telemetry *t =
        lock_fresh("fail=nvmlDeviceSetGpuLockedClocks:4", 1500, CB_FAIL, &resets, &why);
    CB_CHECK(strstr(why.text, "nvidia-smi -acp UNRESTRICTED") != NULL);
    CB_CHECK(strstr(why.text, FAKE_UUID) != NULL);
    CB_CHECK_EQ_INT(fake_calls("nvmlDeviceResetGpuLockedClocks"), resets);
    char log[64];
    read_log(log, sizeof log);
    CB_CHECK_STR(log, "");
    cb_telemetry_close(t);

    /* Above the GPU's maximum SM clock: the driver's invalid argument. */
    t = open_fake("max_clock_sm=1980");
    CB_CHECK(cb_telemetry_lock_clocks(t, 5000, &why) == CB_FAIL);
    CB_CHECK(strstr(why.text, "--lock-clocks 5000") != NULL);
    cb_telemetry_close(t);

    /* No NVML at all: refused before any call. */
    cb_telemetry_options o;
    cb_telemetry_options_defaults(&o);
    o.library = "/nonexistent/libnvidia-ml.so.1";
    t = cb_telemetry_open(&o, (const char *[]){FAKE_UUID}, 1);
    CB_CHECK(cb_telemetry_lock_clocks(t, 1500, &why) == CB_FAIL);
    CB_CHECK(strstr(why.text, "--lock-clocks needs NVML") != NULL);
    cb_telemetry_close(t);
}

/* A child holds the lock and leaves by `how`; the parent reads the log. */
static int child_leaves(int how)
{
    remove(log_path);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        cb_telemetry *t = open_fake("max_clock_sm=1980");
        cb_msg why = {{0}};
        if (cb_telemetry_lock_clocks(t, 1410, &why) != CB_OK) _exit(3);
        if (how == 0) exit(0); /* exit() without closing: atexit resets */
        cb_install_signal_handlers(false);
        cb_signals_on_fatal(cb_telemetry_unlock_for_exit);
        raise(SIGINT); /* the first only asks the run to stop */
        if (!cb_interrupted()) _exit(4);
        raise(SIGINT); /* at once: the same request again (timeout's group signal) */
        sleep(2);
        raise(SIGINT); /* a second request ends the process */
        _exit(5);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return status;
}

static void test_exit_paths(void)
{
    char log[512];
    int status = child_leaves(0);
    CB_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    read_log(log, sizeof log);
    CB_CHECK_STR(log, "lock " FAKE_UUID " 1410\nreset " FAKE_UUID " 0\n");

    status = child_leaves(1);
    CB_CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT);
    read_log(log, sizeof log);
    CB_CHECK_STR(log, "lock " FAKE_UUID " 1410\nreset " FAKE_UUID " 0\n");
}

int main(void)
{
    void *h = fake_nvml_load();
    if (!h) return cb_test_finish("test_clock_lock");

    char dir[] = "/tmp/cb_clock_lock_XXXXXX";
    CB_CHECK(mkdtemp(dir) != NULL);
    snprintf(log_path, sizeof log_path, "%s/nvml.log", dir);
    setenv("CUBENCH_FAKE_NVML_LOG", log_path, 1);

    test_lock_and_reset();
    test_close_resets();
    test_refused();
    test_exit_paths();

    remove(log_path);
    rmdir(dir);
    return cb_test_finish("test_clock_lock");
}
