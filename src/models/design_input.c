/*
  The bounded input force of the optimal-input-design models (oscillator2 and cart_pendulum,
  section 4 of their specs): F(t) in [-F_max, F_max], one of

    zero      F = 0 (free vibration from -initial_q, -initial_v)
    constant  F = F_max/2 (the initial design F0)
    sine      F = F_max sin(2 pi (t - t0)/(tf - t0)) (the comparison input, continuous)

  Each model owns its options, -<model>_input and -<model>_force_max.
*/
#include "models/modelimpl.h"

static const char *const MbsDesignInputTypes[] = {"zero", "constant", "sine", "MbsDesignInputType", "MBS_DESIGN_INPUT_", NULL};

/*@C
  MbsDesignInputCreate - Makes the model's data a design input of the given default type and bound, and installs its
  excitation, options and destroy functions. Not collective.
@*/
PetscErrorCode MbsDesignInputCreate(MbsModel model, MbsDesignInputType type, PetscReal force_max)
{
  MbsDesignInput *input;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&input));
  input->type                 = type;
  input->force_max            = force_max;
  model->data                 = input;
  model->ops.excitation       = MbsDesignInputForce;
  model->ops.set_from_options = MbsDesignInputSetFromOptions;
  model->ops.destroy          = MbsDesignInputDestroy;
  PetscFunctionReturn(0);
}

PetscErrorCode MbsDesignInputForce(MbsModel model, PetscReal t, PetscReal *force)
{
  MbsDesignInput *input = (MbsDesignInput *)model->data;

  PetscFunctionBeginUser;
  switch (input->type) {
  case MBS_DESIGN_INPUT_ZERO:
    *force = 0;
    break;
  case MBS_DESIGN_INPUT_CONSTANT:
    *force = 0.5 * input->force_max;
    break;
  case MBS_DESIGN_INPUT_SINE:
    *force = input->force_max * PetscSinReal(2 * PETSC_PI * (t - model->t0) / (model->tf - model->t0));
    break;
  }
  PetscFunctionReturn(0);
}

PetscErrorCode MbsDesignInputSetFromOptions(MbsModel model, PetscOptionItems *PetscOptionsObject)
{
  MbsDesignInput *input = (MbsDesignInput *)model->data;
  char            type_option[96], bound_option[96];

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(type_option, sizeof(type_option), "-%s_input", model->type));
  PetscCall(PetscSNPrintf(bound_option, sizeof(bound_option), "-%s_force_max", model->type));
  PetscCall(PetscOptionsEnum(type_option, "Input force: zero (free vibration), constant F_max/2, sine F_max sin(2 pi (t - t0)/(tf - t0))", "", MbsDesignInputTypes, (PetscEnum)input->type, (PetscEnum *)&input->type, NULL));
  PetscCall(PetscOptionsReal(bound_option, "Input bound F_max [N]", "", input->force_max, &input->force_max, NULL));
  PetscCheck(input->force_max >= 0, model->comm, PETSC_ERR_ARG_OUTOFRANGE, "%s must be >= 0 N, got %g", bound_option, (double)input->force_max);
  PetscFunctionReturn(0);
}

PetscErrorCode MbsDesignInputDestroy(MbsModel model)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(model->data));
  PetscFunctionReturn(0);
}
