/*
  Controllers that break the contract of mbs_controller.h, for the error cases of the bad-input corpus: built for
  another ABI version, without a step function, returning NaN, declaring parameters without names.
*/
#include "mbs_controller.h"
#include <math.h>

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
