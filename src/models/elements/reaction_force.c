/*
  Element reaction_force: the force [N] a prescribed motion (prescribed.c) applies to its body along its axis e, what a
  shaker's force gauge reads. The rows M v' - f + Phi_q^T lambda = 0 give the body the constraint force
  -Phi_r,q^T lambda_r = -lambda_r P^T e of its row r, so

    y = -lambda_r,   dy/dlambda_r = -1

  read by the model from U (model_described.c: a sensor's own callbacks see only q, v and a). Fields: prescribed (the
  name of a prescribed element declared before the sensor).
*/
#include "models/elements/elementimpl.h"

static PetscErrorCode ReactionForceRead(MbsYAMLReader *reader, void *node, MbsElement *el)
{
  PetscFunctionBeginUser;
  PetscCall(MbsYAMLReadEarlierElement(reader, node, "prescribed", el, &el->constraint));
  PetscFunctionReturn(0);
}

static const MbsElementType ReactionForce = {MBS_ELEMENT_SENSOR, ReactionForceRead, NULL, NULL, "N", PETSC_FALSE, NULL, NULL, NULL, PETSC_FALSE, NULL};

PetscErrorCode MbsElementGetType_ReactionForce(const MbsElementType **type)
{
  *type = &ReactionForce;
  return 0;
}
