/*
  Element engine_force: a follower force F = s(t) R d at a body point P (powertrain_mounts.md section 5: the free
  second-order inertia force m_osc r lambda w^2 cos(2 theta) along the cylinders), d a unit direction fixed in the body
  and s(t) an engine-order law of the crank angle (engine_order.c). In natural coordinates R d and P are linear in q, so
  the generalised force s P^T (R d) and its Jacobian s P^T D (D: the map of R d) are exact. Fields: body, point (ground
  coordinates at the initial pose, default the centre of mass), direction (ground axes at the initial pose, turning
  with the body), and the law's orders, amplitudes [N/(rad/s)^power], powers, phases, functions. A coordinate of the
  point may be a parameter p_j (geometry.c): with G = dP/dp_j (linear in q), -df/dp_j = -s G^T (B q) and the
  derivative of Jq = -s A^T B is -s G^T B. So may a component of the direction a (unit "1"; geometry.c, "Axes"): the
  body direction is d = R0^T e, e = a/|a|, and with D the map of R dd/dp_j, dd/dp_j = R0^T (I - e e^T) da/dp_j / |a|,
  -df/dp_j = -s A^T (D q) and the derivative of Jq is -s A^T D (MbsFollowerLoadMoved).
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

/* The maps of the load's generalised force s(t) A^T (B q) (MbsFollowerLoad), B = R d with d = R0^T e at the direction
   of the last update (geometry.c), and with j >= 0 dB = R dd/dp_j, p_j a component of the direction */
static void EngineForceMaps(MbsDescription desc, const MbsElement *el, PetscInt j, MbsVectorMap *A, MbsVectorMap *B, MbsVectorMap *dB)
{
  PetscReal e[3], de[3], d[3];

  MbsMapPoint(desc, el->body[0], el->vector[0], A);
  MbsJointAxisUnit(el, j, e, de);
  MbsDescriptionLocalDirection(desc, el->body[0], e, d);
  MbsMapDirection(desc, el->body[0], d, B);
  if (j < 0) return;
  MbsDescriptionLocalDirection(desc, el->body[0], de, d);
  MbsMapDirection(desc, el->body[0], d, dB);
}

static PetscErrorCode EngineForceForce(MbsDescription desc, const MbsElement *el, PetscReal t, const PetscReal q[], const PetscReal v[], PetscReal F[], PetscReal Jq[], PetscReal Jv[], PetscReal Jp[], PetscInt ld)
{
  MbsVectorMap A, B, D;

  PetscFunctionBeginUser;
  EngineForceMaps(desc, el, -1, &A, &B, NULL);
  PetscCall(MbsFollowerLoad(desc, el, &A, &B, t, q, F, Jq, Jp, ld));
  for (PetscInt n = 0; n < el->ngeometry && Jp; n++) {
    if (!MbsGeometryFirst(el, n)) continue;
    MbsGeometryPointDerivative(desc, el, 0, el->geometry[n].param, &D);
    MbsFollowerLoadMoved(desc, el, &A, &B, &D, NULL, t, q, Jp + el->geometry[n].param * ld, ld);
  }
  for (PetscInt c = 0; c < 3 && Jp; c++) {
    PetscInt j = MbsJointAxisFirst(el, c);

    if (j < 0) continue;
    EngineForceMaps(desc, el, j, &A, &B, &D);
    MbsFollowerLoadMoved(desc, el, &A, &B, NULL, &D, t, q, Jp + j * ld, ld);
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode EngineForceSecond(MbsDescription desc, const MbsElement *el, PetscReal t, const PetscReal q[], const PetscReal v[], const PetscReal sq[], const PetscReal sv[], PetscInt j, PetscReal Dq[], PetscReal Dv[], PetscInt ld, PetscReal work[])
{
  MbsVectorMap A, B, D;

  PetscFunctionBeginUser;
  EngineForceMaps(desc, el, -1, &A, &B, NULL);
  PetscCall(MbsFollowerLoadSecond(desc, el, &A, &B, t, j, Dq, ld));
  if (MbsGeometryPointDerivative(desc, el, 0, j, &D)) MbsFollowerLoadMoved(desc, el, &A, &B, &D, NULL, t, NULL, Dq, ld);
  if (!MbsJointAxisParameter(el, j)) PetscFunctionReturn(0);
  EngineForceMaps(desc, el, j, &A, &B, &D);
  MbsFollowerLoadMoved(desc, el, &A, &B, NULL, &D, t, NULL, Dq, ld);
  PetscFunctionReturn(0);
}

static const MbsElementType EngineForce = {MBS_ELEMENT_EXCITATION, EngineForceRead, EngineForceForce, NULL, NULL, PETSC_FALSE, MbsEngineOrderValue, NULL, EngineForceSecond, PETSC_TRUE, NULL};

PetscErrorCode MbsElementGetType_EngineForce(const MbsElementType **type)
{
  *type = &EngineForce;
  return 0;
}
