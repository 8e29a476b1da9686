/*
  Element engine_force: a follower force F = s(t) R d at a body point P (powertrain_mounts.md section 5: the free
  second-order inertia force m_osc r lambda w^2 cos(2 theta) along the cylinders), d a unit direction fixed in the body
  and s(t) an engine-order law of the crank angle (engine_order.c). In natural coordinates R d and P are linear in q, so
  the generalised force s P^T (R d) and its Jacobian s P^T D (D: the map of R d) are exact. Fields: body, point (ground
  coordinates at the initial pose, default the centre of mass), direction (ground axes at the initial pose, turning
  with the body), and the law's orders, amplitudes [N/(rad/s)^power], powers, phases, functions. A coordinate of the
  point may be a parameter p_j (geometry.c): with G = dP/dp_j (linear in q), -df/dp_j = -s G^T (B q) and the
  derivative of Jq = -s A^T B is -s G^T B.
*/
#include "models/elements/elementimpl.h"

static PetscErrorCode EngineForceRead(MbsYAMLReader *reader, void *node, MbsElement *el)
{
  MbsDescription desc = MbsYAMLReaderDescription(reader);
  PetscReal      direction[3];

  PetscFunctionBeginUser;
  PetscCall(MbsYAMLReadBody(reader, node, "body", PETSC_TRUE, &el->body[0]));
  if (el->body[0] == MBS_GROUND) PetscCall(MbsYAMLError(reader, node, "a force on the ground does nothing; name a body"));
  PetscCall(MbsYAMLReadWorldPoint(reader, node, el->body[0], el->vector[0]));
  PetscCall(MbsYAMLReadUnitVector(reader, node, "direction", direction));
  MbsDescriptionLocalDirection(desc, el->body[0], direction, el->vector[1]);
  PetscCall(MbsEngineOrderRead(reader, node, "N", el));
  PetscFunctionReturn(0);
}

/* The maps of the load's generalised force s(t) A^T (B q) (MbsFollowerLoad) */
static void EngineForceMaps(MbsDescription desc, const MbsElement *el, MbsVectorMap *A, MbsVectorMap *B)
{
  MbsMapPoint(desc, el->body[0], el->vector[0], A);
  MbsMapDirection(desc, el->body[0], el->vector[1], B);
}

static PetscErrorCode EngineForceForce(MbsDescription desc, const MbsElement *el, PetscReal t, const PetscReal q[], const PetscReal v[], PetscReal F[], PetscReal Jq[], PetscReal Jv[], PetscReal Jp[], PetscInt ld)
{
  MbsVectorMap A, B;
  PetscReal    Bq[3], s;

  PetscFunctionBeginUser;
  EngineForceMaps(desc, el, &A, &B);
  PetscCall(MbsFollowerLoad(desc, el, &A, &B, t, q, F, Jq, Jp, ld));
  if (!el->ngeometry || !Jp) PetscFunctionReturn(0);
  MbsMapEval(desc, &B, q, PETSC_TRUE, Bq);
  s = MbsEngineOrderValue(desc, el, t, NULL);
  for (PetscInt n = 0; n < el->ngeometry; n++) {
    MbsVectorMap G;

    if (!MbsGeometryFirst(el, n)) continue;
    MbsGeometryPointDerivative(desc, el, 0, el->geometry[n].param, &G);
    MbsMapAddTranspose(desc, &G, -s, Bq, Jp + el->geometry[n].param * ld, 1);
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode EngineForceSecond(MbsDescription desc, const MbsElement *el, PetscReal t, const PetscReal q[], const PetscReal v[], const PetscReal sq[], const PetscReal sv[], PetscInt j, PetscReal Dq[], PetscReal Dv[], PetscInt ld, PetscReal work[])
{
  MbsVectorMap A, B, G;

  PetscFunctionBeginUser;
  EngineForceMaps(desc, el, &A, &B);
  PetscCall(MbsFollowerLoadSecond(desc, el, &A, &B, t, j, Dq, ld));
  if (MbsGeometryPointDerivative(desc, el, 0, j, &G)) MbsMapAddOuter(desc, &G, &B, NULL, -MbsEngineOrderValue(desc, el, t, NULL), Dq, ld);
  PetscFunctionReturn(0);
}

static const MbsElementType EngineForce = {MBS_ELEMENT_EXCITATION, EngineForceRead, EngineForceForce, NULL, NULL, PETSC_FALSE, MbsEngineOrderValue, NULL, EngineForceSecond, PETSC_TRUE, NULL};

PetscErrorCode MbsElementGetType_EngineForce(const MbsElementType **type)
{
  *type = &EngineForce;
  return 0;
}
