/* Telemetry reaching up into the output layer: must NOT compile. */
#include "sink.h"
