/*
  Element angle: sensor y = theta [rad], the rotation of body about axis relative to a reference body (default: the
  ground), zero at the initial pose, theta = atan2(S, C) as in rotational_spring.c; dy/dq = theta_q. Fields: body,
  reference, axis (ground coordinates at the initial pose; its components may be parameters, dy/dp_j = theta_p of
  rotational_spring.c).
*/
#include "models/elements/elementimpl.h"

static PetscErrorCode AngleRead(MbsYAMLReader *reader, void *node, MbsElement *el)
{
  MbsDescription desc = MbsYAMLReaderDescription(reader);
  PetscReal      axis[3];

  PetscFunctionBeginUser;
  PetscCall(MbsYAMLReadBody(reader, node, "body", PETSC_TRUE, &el->body[1]));
  PetscCall(MbsYAMLReadBody(reader, node, "reference", PETSC_FALSE, &el->body[0]));
  PetscCall(MbsYAMLReadAxis(reader, node, "axis", el, axis));
  if (el->body[1] == MBS_GROUND || !desc->body[el->body[1]].rigid) PetscCall(MbsYAMLError(reader, node, "an angle sensor needs a rigid body (with inertia) as body"));
  if (el->body[0] == el->body[1]) PetscCall(MbsYAMLError(reader, node, "body and reference are the same body"));
  MbsRelativeAngleRows(desc, el, axis);
  PetscFunctionReturn(0);
}

static PetscErrorCode AngleSensor(MbsDescription desc, const MbsElement *el, const PetscReal q[], const PetscReal v[], const PetscReal a[], PetscReal *y, PetscReal dydq[], PetscReal dydv[], PetscReal dyda[])
{
  PetscReal *grad = desc->work + 2 * desc->nq;

  PetscFunctionBeginUser;
  *y = MbsRelativeAngle(desc, el, q, grad, NULL);
  if (dydq) PetscCall(PetscArraycpy(dydq, grad, desc->nq));
  PetscFunctionReturn(0);
}

/* dy/dp_j = theta_p of each axis component p_j */
static PetscErrorCode AngleSensorP(MbsDescription desc, const MbsElement *el, const PetscReal q[], const PetscReal v[], const PetscReal a[], PetscReal dydp[])
{
  PetscInt   nq   = desc->nq;
  PetscReal *grad = desc->work + 2 * nq, *grad_p = grad + nq; /* S_qq's scratch, unused without the Hessian */

  PetscFunctionBeginUser;
  (void)MbsRelativeAngle(desc, el, q, grad, NULL);
  for (PetscInt c = 0; c < 3 && el->naxis; c++) { /* each once */
    PetscInt j = MbsJointAxisFirst(el, c);

    if (j < 0) continue;
    dydp[j] += MbsRelativeAngleP(desc, el, j, q, grad_p);
  }
  PetscFunctionReturn(0);
}

static const MbsElementType Angle = {MBS_ELEMENT_SENSOR, AngleRead, NULL, AngleSensor, "rad", PETSC_FALSE, NULL, AngleSensorP, NULL, PETSC_FALSE, MbsRelativeAngleMoved};

PetscErrorCode MbsElementGetType_Angle(const MbsElementType **type)
{
  *type = &Angle;
  return 0;
}
