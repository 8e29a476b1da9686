/*
  Element engine_torque: a follower torque M = s(t) R m about a unit axis m fixed in the body (powertrain_mounts.md
  section 5: the second-order roll torque T2 sin(2 theta) about the crank axis), s(t) an engine-order law of the crank
  angle (engine_order.c), on the body alone (its reaction is not modelled). It is applied as the couple of the follower
  forces s R n2 at the body directions n1 and -s R n2 at -n1 (n1 x n2 = m, both unit), whose generalised force
  s N1^T (N2 q) (N1, N2: the maps of R n1, R n2) has the virtual work s (delta theta x R n1).(R n2) = s delta theta.R m,
  and is linear in q. Fields: body, axis (ground axes at the initial pose, turning with the body), and the law's
  orders, amplitudes [N m/(rad/s)^power], powers, phases, functions.
*/
#include "models/elements/elementimpl.h"

static PetscErrorCode EngineTorqueRead(MbsYAMLReader *reader, void *node, MbsElement *el)
{
  MbsDescription desc = MbsYAMLReaderDescription(reader);
  PetscReal      axis[3], local[3];

  PetscFunctionBeginUser;
  PetscCall(MbsYAMLReadBody(reader, node, "body", PETSC_TRUE, &el->body[0]));
  if (el->body[0] == MBS_GROUND) PetscCall(MbsYAMLError(reader, node, "a torque on the ground does nothing; name a body"));
  if (!desc->body[el->body[0]].rigid) PetscCall(MbsYAMLError(reader, node, "a torque on a point mass does nothing; name a rigid body (one with inertia)"));
  PetscCall(MbsYAMLReadUnitVector(reader, node, "axis", axis));
  MbsDescriptionLocalDirection(desc, el->body[0], axis, local);
  MbsPerpendicular(local, el->vector[0], el->vector[1]);
  PetscCall(MbsEngineOrderRead(reader, node, "N m", el));
  PetscFunctionReturn(0);
}

/* The maps of the load's generalised force s(t) A^T (B q) (MbsFollowerLoad) */
static void EngineTorqueMaps(MbsDescription desc, const MbsElement *el, MbsVectorMap *A, MbsVectorMap *B)
{
  MbsMapDirection(desc, el->body[0], el->vector[0], A);
  MbsMapDirection(desc, el->body[0], el->vector[1], B);
}

static PetscErrorCode EngineTorqueForce(MbsDescription desc, const MbsElement *el, PetscReal t, const PetscReal q[], const PetscReal v[], PetscReal F[], PetscReal Jq[], PetscReal Jv[], PetscReal Jp[], PetscInt ld)
{
  MbsVectorMap A, B;

  PetscFunctionBeginUser;
  EngineTorqueMaps(desc, el, &A, &B);
  PetscCall(MbsFollowerLoad(desc, el, &A, &B, t, q, F, Jq, Jp, ld));
  PetscFunctionReturn(0);
}

static PetscErrorCode EngineTorqueSecond(MbsDescription desc, const MbsElement *el, PetscReal t, const PetscReal q[], const PetscReal v[], const PetscReal sq[], const PetscReal sv[], PetscInt j, PetscReal Dq[], PetscReal Dv[], PetscInt ld, PetscReal work[])
{
  MbsVectorMap A, B;

  PetscFunctionBeginUser;
  EngineTorqueMaps(desc, el, &A, &B);
  PetscCall(MbsFollowerLoadSecond(desc, el, &A, &B, t, j, Dq, ld));
  PetscFunctionReturn(0);
}

static const MbsElementType EngineTorque = {MBS_ELEMENT_EXCITATION, EngineTorqueRead, EngineTorqueForce, NULL, NULL, PETSC_FALSE, MbsEngineOrderValue, NULL, EngineTorqueSecond, PETSC_FALSE, NULL};

PetscErrorCode MbsElementGetType_EngineTorque(const MbsElementType **type)
{
  *type = &EngineTorque;
  return 0;
}
