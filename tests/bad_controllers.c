/*
  Controllers that break the contract of mbs_controller.h, for the error cases of the bad-input corpus: built for
  another ABI version, without a step function, returning NaN or 1e300, declaring parameters without names or with a
  NULL name, an entry that is a data object, a step that calls exit(0).
*/
#include "mbs_controller.h"
#include <math.h>
#include <stdlib.h>

typedef struct {
  double y;
} State;

static double Init(void *state, const void *params, double t0, double y0)
{
  ((State *)state)->y = y0;
  return 0;
}

static double StepNaN(void *state, double t, double y, double dt)
{
  return t > 0.05 ? NAN : y;
}

const mbs_controller_plugin *old_abi_controller(void)
{
  static const mbs_controller_plugin plugin = {
    MBS_CONTROLLER_ABI_VERSION - 1, "built for the previous ABI", 0, NULL, NULL, {sizeof(State), Init, StepNaN}
  };
  return &plugin;
}

const mbs_controller_plugin *no_step_controller(void)
{
  static const mbs_controller_plugin plugin = {
    MBS_CONTROLLER_ABI_VERSION, "no step function", 0, NULL, NULL, {sizeof(State), Init, NULL}
  };
  return &plugin;
}

const mbs_controller_plugin *nan_controller(void)
{
  static const mbs_controller_plugin plugin = {
    MBS_CONTROLLER_ABI_VERSION, "NaN after 0.05 s", 0, NULL, NULL, {sizeof(State), Init, StepNaN}
  };
  return &plugin;
}

const mbs_controller_plugin *unnamed_params_controller(void)
{
  static const mbs_controller_plugin plugin = {
    MBS_CONTROLLER_ABI_VERSION, "two parameters, no names", 2, NULL, NULL, {sizeof(State), Init, StepNaN}
  };
  return &plugin;
}

const mbs_controller_plugin *null_controller(void)
{
  return NULL;
}

static double StepHuge(void *state, double t, double y, double dt)
{
  return t > 0.05 ? 1e300 : y;
}

const mbs_controller_plugin *huge_controller(void)
{
  static const mbs_controller_plugin plugin = {
    MBS_CONTROLLER_ABI_VERSION, "1e300 after 0.05 s", 0, NULL, NULL, {sizeof(State), Init, StepHuge}
  };
  return &plugin;
}

static double StepExit(void *state, double t, double y, double dt)
{
  if (t > 0.05) exit(0);
  return y;
}

const mbs_controller_plugin *exit_controller(void)
{
  static const mbs_controller_plugin plugin = {
    MBS_CONTROLLER_ABI_VERSION, "exit(0) after 0.05 s", 0, NULL, NULL, {sizeof(State), Init, StepExit}
  };
  return &plugin;
}

const mbs_controller_plugin *null_name_controller(void)
{
  static const char *const           names[]    = {"kp", NULL};
  static const double                defaults[] = {1, 2};
  static const mbs_controller_plugin plugin     = {
        MBS_CONTROLLER_ABI_VERSION, "the second parameter's name is NULL", 2, names, defaults, {sizeof(State), Init, StepNaN}
  };
  return &plugin;
}

/* the description itself where the entry function should be: calling it would jump into data */
const mbs_controller_plugin data_controller = {
  MBS_CONTROLLER_ABI_VERSION, "a data object, not a function", 0, NULL, NULL, {sizeof(State), Init, StepNaN}
};
