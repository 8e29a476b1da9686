/* Black-box controllers: loading (controller.c) and perturbation estimates of their gains (perturbation.c). */
#pragma once

#include "mbsidimpl.h"
#include "controllers/mbs_controller.h"

/* The read-only view of a controller (tests/check_layers.py; see models/modelimpl.h): where it was loaded from
   view _p_MbsController: source symbol
*/
struct _p_MbsController {
  MPI_Comm                     comm;
  char                         source[PETSC_MAX_PATH_LEN]; /* the library's path, or "built-in" */
  char                         symbol[160];                /* <prefix>_controller */
  char                         option[160];                /* the option that chose it (-controller, -F_controller), for messages */
  void                        *library;                    /* dlopen handle; NULL for a built-in controller */
  const mbs_controller_plugin *plugin;
  PetscReal                   *params;
  void                        *state;
  PetscReal                    output;  /* u of the last init or step: the u0 of a perturbation */
  PetscBool                    started; /* init was called */
  /* the model's channel it reads (-controller_sensor), "": the output */
  char sensor[256];
};

/* The built-in controllers, the same code as the plug-in library (test_controllers.c) */
const mbs_controller_plugin *pid_controller(void);
const mbs_controller_plugin *pid_switch_controller(void);
const mbs_controller_plugin *integrator1_controller(void);
const mbs_controller_plugin *integrator2_controller(void);
const mbs_controller_plugin *integrator3_controller(void);
const mbs_controller_plugin *derivative1_controller(void);
const mbs_controller_plugin *derivative2_controller(void);
