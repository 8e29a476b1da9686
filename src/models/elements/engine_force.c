/*
  Element engine_force: a follower force F = s(t) R d at a body point P (powertrain_mounts.md section 5: the free
  second-order inertia force m_osc r lambda w^2 cos(2 theta) along the cylinders), d a unit direction fixed in the body
  and s(t) an engine-order law of the crank angle (engine_order.c). In natural coordinates R d and P are linear in q, so
  the generalised force s P^T (R d) and its Jacobian are exact (MbsFollowerForce, engine_order.c, shared with force's
  frame: body). Fields: body, point (ground coordinates at the initial pose, default the centre of mass; its
  coordinates may be parameters), direction (ground axes at the initial pose, turning with the body; its components may
  be parameters), and the law's orders, amplitudes [N/(rad/s)^power], powers, phases, functions.
*/
#include "models/elements/elementimpl.h"

static PetscErrorCode EngineForceRead(MbsYAMLReader *reader, void *node, MbsElement *el)
{
  PetscReal direction[3];

  PetscFunctionBeginUser;
  PetscCall(MbsYAMLReadBody(reader, node, "body", PETSC_TRUE, &el->body[0]));
  if (el->body[0] == MBS_GROUND) PetscCall(MbsYAMLError(reader, node, "a force on the ground does nothing; name a body"));
  PetscCall(MbsYAMLReadWorldPoint(reader, node, el->body[0], el->vector[0]));
  PetscCall(MbsYAMLReadAxis(reader, node, "direction", el, direction));
  PetscCall(MbsEngineOrderRead(reader, node, "N", el));
  PetscFunctionReturn(0);
}

static const MbsElementType EngineForce = {MBS_ELEMENT_EXCITATION, EngineForceRead, MbsFollowerForce, NULL, NULL, PETSC_FALSE, MbsEngineOrderValue, NULL, MbsFollowerForceSecond, PETSC_TRUE, NULL};

PetscErrorCode MbsElementGetType_EngineForce(const MbsElementType **type)
{
  *type = &EngineForce;
  return 0;
}
