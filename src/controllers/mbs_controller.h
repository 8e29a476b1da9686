/*
  The C interface of a black-box controller (../shared/models/pid_sdof.md, section 2), as mbsid loads it from a
  shared library. This header is all a controller's author needs: include it, fill an mbs_controller_plugin and export
  one function per controller,

      const mbs_controller_plugin *<prefix>_controller(void);

  then run mbsid with -controller path/to/lib.so -controller_symbol <prefix>. mbsid obtains outputs only through init
  and step, and saves and restores the state as bytes: the state must hold every internal variable, gains included
  (step receives no parameters), and no pointers.

  test_controllers.c is a complete example: the PID family and the integrator and derivative chains of the spec.
*/
#pragma once

#include <stddef.h>
#include <string.h>

/* Raised when the layout below changes; a plug-in built for another version is refused by name */
#define MBS_CONTROLLER_ABI_VERSION 1

typedef struct bb_controller {
  size_t state_bytes; /* size of the opaque, pointer-free state (POD) */
  /* initialise at time t0 with the current input sample y0; returns u(t0) */
  double (*init)(void *state, const void *params, double t0, double y0);
  /* advance from the previous sample time t - dt to time t with the new input sample y (first-order hold between
     the samples); returns the output u(t) */
  double (*step)(void *state, double t, double y, double dt);
} bb_controller;

static inline void bb_save(const bb_controller *c, const void *state, void *buf)
{
  memcpy(buf, state, c->state_bytes);
}

static inline void bb_restore(const bb_controller *c, void *state, const void *buf)
{
  memcpy(state, buf, c->state_bytes);
}

typedef struct mbs_controller_plugin {
  int                abi_version;    /* MBS_CONTROLLER_ABI_VERSION the plug-in was built with; first in every version */
  const char        *description;    /* one line for mbsid's reports */
  int                nparams;        /* init receives params as an array of nparams doubles (-controller_params) */
  const char *const *param_names;    /* nparams names, for -help and the result files */
  const double      *param_defaults; /* nparams values used when -controller_params is not given */
  bb_controller      controller;
} mbs_controller_plugin;

typedef const mbs_controller_plugin *(*mbs_controller_entry)(void);
