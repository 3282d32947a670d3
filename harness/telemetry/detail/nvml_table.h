/* nvml_table.h - the few NVML types, constants and entry points cubench uses,
 * declared here so that nothing needs nvml.h or libnvidia-ml at build time
 * (neither exists on the CPU build machines). telemetry_nvml.c fills a
 * cb_nvml_table by dlopen/dlsym at run time; tests/fake_nvml implements the
 * same entry points with scripted values.
 *
 * The layouts and values follow the public NVML API (nvml.h of driver 5xx):
 * they are ABI, so every value here is fixed by NVIDIA, not by us. */
#ifndef CB_NVML_TABLE_H
#define CB_NVML_TABLE_H

typedef int cb_nvmlReturn_t;                      /* nvmlReturn_t (an enum: int-sized) */
typedef struct cb_nvmlDevice_st *cb_nvmlDevice_t; /* opaque handle */

enum {
    CB_NVML_SUCCESS = 0,
    CB_NVML_ERROR_UNINITIALIZED = 1,
    CB_NVML_ERROR_INVALID_ARGUMENT = 2,
    CB_NVML_ERROR_NOT_SUPPORTED = 3,
    CB_NVML_ERROR_NO_PERMISSION = 4,
    CB_NVML_ERROR_NOT_FOUND = 6,
    CB_NVML_ERROR_INSUFFICIENT_SIZE = 7,
    CB_NVML_ERROR_DRIVER_NOT_LOADED = 9,
    CB_NVML_ERROR_TIMEOUT = 10,
    CB_NVML_ERROR_LIBRARY_NOT_FOUND = 12,
    CB_NVML_ERROR_FUNCTION_NOT_FOUND = 13,
    CB_NVML_ERROR_GPU_IS_LOST = 15,
    CB_NVML_ERROR_UNKNOWN = 999,
};

/* nvmlClockType_t */
enum { CB_NVML_CLOCK_GRAPHICS = 0, CB_NVML_CLOCK_SM = 1, CB_NVML_CLOCK_MEM = 2 };
/* nvmlTemperatureSensors_t */
enum { CB_NVML_TEMPERATURE_GPU = 0 };
/* nvmlEnableState_t */
enum { CB_NVML_FEATURE_DISABLED = 0, CB_NVML_FEATURE_ENABLED = 1 };
/* nvmlPerfPolicyType_t: what held the clocks below the requested ones */
enum { CB_NVML_PERF_POLICY_POWER = 0, CB_NVML_PERF_POLICY_THERMAL = 1 };

/* nvmlViolationTime_t: violationTime is cumulative, in ns, since the
 * driver loaded; referenceTime is the timestamp of the reading (us). */
typedef struct cb_nvmlViolationTime_t {
    unsigned long long referenceTime;
    unsigned long long violationTime;
} cb_nvmlViolationTime_t;

/* Field ids of nvmlDeviceGetFieldValues: board power in milliwatts, read now
 * (instant) or averaged by the driver over 1 s. */
#define CB_NVML_FI_DEV_POWER_AVERAGE 185
#define CB_NVML_FI_DEV_POWER_INSTANT 186

/* Clock-event (throttle) reason bits, nvmlClocksEventReason* (the older
 * nvmlClocksThrottleReason* names have the same values). */
#define CB_NVML_REASON_GPU_IDLE                0x001ULL
#define CB_NVML_REASON_APPLICATIONS_CLOCKS     0x002ULL
#define CB_NVML_REASON_SW_POWER_CAP            0x004ULL
#define CB_NVML_REASON_HW_SLOWDOWN             0x008ULL
#define CB_NVML_REASON_SYNC_BOOST              0x010ULL
#define CB_NVML_REASON_SW_THERMAL_SLOWDOWN     0x020ULL
#define CB_NVML_REASON_HW_THERMAL_SLOWDOWN     0x040ULL
#define CB_NVML_REASON_HW_POWER_BRAKE_SLOWDOWN 0x080ULL
#define CB_NVML_REASON_DISPLAY_CLOCK_SETTING   0x100ULL

/* nvmlValueType_t and nvmlValue_t / nvmlFieldValue_t, layout as in nvml.h. */
enum {
    CB_NVML_VALUE_TYPE_DOUBLE = 0,
    CB_NVML_VALUE_TYPE_UNSIGNED_INT = 1,
    CB_NVML_VALUE_TYPE_UNSIGNED_LONG = 2,
    CB_NVML_VALUE_TYPE_UNSIGNED_LONG_LONG = 3,
    CB_NVML_VALUE_TYPE_SIGNED_LONG_LONG = 4,
    CB_NVML_VALUE_TYPE_SIGNED_INT = 5,
    CB_NVML_VALUE_TYPE_UNSIGNED_SHORT = 6
};

typedef union cb_nvmlValue_t {
    double dVal;
    unsigned int uiVal;
    unsigned long ulVal;
    unsigned long long ullVal;
    long long sllVal;
    int siVal;
    unsigned short usVal;
} cb_nvmlValue_t;

typedef struct cb_nvmlFieldValue_t {
    unsigned int fieldId;
    unsigned int scopeId;
    long long timestamp; /* microseconds since 1970 */
    long long latencyUsec;
    int valueType; /* nvmlValueType_t */
    cb_nvmlReturn_t nvmlReturn;
    cb_nvmlValue_t value;
} cb_nvmlFieldValue_t;

/* Buffer sizes nvml.h recommends for the string queries. */
enum { CB_NVML_STRING_LEN = 96 };

/* The entry points, as function pointers. A NULL member is a symbol the
 * library lacks (an older driver); callers treat it as "not supported". */
typedef struct cb_nvml_table {
    cb_nvmlReturn_t (*Init)(void); /* nvmlInit_v2 */
    cb_nvmlReturn_t (*Shutdown)(void);
    const char *(*ErrorString)(cb_nvmlReturn_t);
    cb_nvmlReturn_t (*SystemGetDriverVersion)(char *, unsigned int);
    cb_nvmlReturn_t (*SystemGetNVMLVersion)(char *, unsigned int);
    cb_nvmlReturn_t (*DeviceGetCount)(unsigned int *);                          /* _v2 */
    cb_nvmlReturn_t (*DeviceGetHandleByIndex)(unsigned int, cb_nvmlDevice_t *); /* _v2 */
    cb_nvmlReturn_t (*DeviceGetUUID)(cb_nvmlDevice_t, char *, unsigned int);
    cb_nvmlReturn_t (*DeviceGetName)(cb_nvmlDevice_t, char *, unsigned int);
    cb_nvmlReturn_t (*DeviceGetClockInfo)(cb_nvmlDevice_t, int, unsigned int *);
    cb_nvmlReturn_t (*DeviceGetMaxClockInfo)(cb_nvmlDevice_t, int, unsigned int *);
    cb_nvmlReturn_t (*DeviceGetApplicationsClock)(cb_nvmlDevice_t, int, unsigned int *);
    cb_nvmlReturn_t (*DeviceGetPowerUsage)(cb_nvmlDevice_t, unsigned int *); /* mW */
    cb_nvmlReturn_t (*DeviceGetFieldValues)(cb_nvmlDevice_t, int, cb_nvmlFieldValue_t *);
    cb_nvmlReturn_t (*DeviceGetTemperature)(cb_nvmlDevice_t, int, unsigned int *);
    /* nvmlDeviceGetCurrentClocksEventReasons, or on drivers before 535 the
     * same call under its older name ...ClocksThrottleReasons. */
    cb_nvmlReturn_t (*DeviceGetClocksEventReasons)(cb_nvmlDevice_t, unsigned long long *);
    cb_nvmlReturn_t (*DeviceGetViolationStatus)(cb_nvmlDevice_t, int, cb_nvmlViolationTime_t *);
    cb_nvmlReturn_t (*DeviceGetEnforcedPowerLimit)(cb_nvmlDevice_t, unsigned int *);
    cb_nvmlReturn_t (*DeviceGetPowerManagementDefaultLimit)(cb_nvmlDevice_t, unsigned int *);
    cb_nvmlReturn_t (*DeviceGetPersistenceMode)(cb_nvmlDevice_t, int *);
    cb_nvmlReturn_t (*DeviceGetEccMode)(cb_nvmlDevice_t, int *, int *);
    cb_nvmlReturn_t (*DeviceGetMigMode)(cb_nvmlDevice_t, unsigned int *, unsigned int *);
    cb_nvmlReturn_t (*DeviceGetCurrPcieLinkGeneration)(cb_nvmlDevice_t, unsigned int *);
    cb_nvmlReturn_t (*DeviceGetCurrPcieLinkWidth)(cb_nvmlDevice_t, unsigned int *);
    cb_nvmlReturn_t (*DeviceGetMaxPcieLinkGeneration)(cb_nvmlDevice_t, unsigned int *);
    cb_nvmlReturn_t (*DeviceGetMaxPcieLinkWidth)(cb_nvmlDevice_t, unsigned int *);
    /* The opt-in clock lock (--lock-clocks): these change the GPU's state
     * until reset, so cubench calls them only when asked, and always resets. */
    cb_nvmlReturn_t (*DeviceSetGpuLockedClocks)(cb_nvmlDevice_t, unsigned int, unsigned int);
    cb_nvmlReturn_t (*DeviceResetGpuLockedClocks)(cb_nvmlDevice_t);
    const char *reasons_symbol; /* which name DeviceGetClocksEventReasons came from */
} cb_nvml_table;

#endif
