/*
  Element engine_torque: a follower torque M = s(t) R m about a unit axis m fixed in the body (powertrain_mounts.md
  section 5: the second-order roll torque T2 sin(2 theta) about the crank axis), s(t) an engine-order law of the crank
  angle (engine_order.c), on the body alone (its reaction is not modelled). It is applied as the couple of the follower
  forces s R n2 at the body directions n1 and -s R n2 at -n1 (n1 x n2 = m, both unit), whose generalised force
  s N1^T (N2 q) (N1, N2: the maps of R n1, R n2) has the virtual work s (delta theta x R n1).(R n2) = s delta theta.R m,
  and is linear in q. Fields: body, axis (ground axes at the initial pose, turning with the body), and the law's
  orders, amplitudes [N m/(rad/s)^power], powers, phases, functions. A component of the axis a may be a parameter p_j
  (unit "1"; geometry.c, "Axes"): m = R0^T e, e = a/|a|, and its normals from the file's branch (MbsPerpendicularAt())
  move with it, so -df/dp_j = -s (dN1^T (N2 q) + N1^T (dN2 q)) and the derivative of Jq = -s N1^T N2 is
  -s (dN1^T N2 + N1^T dN2), dN_i the maps of R dn_i/dp_j (MbsFollowerLoadMoved).
*/
#include "models/elements/elementimpl.h"

static PetscErrorCode EngineTorqueRead(MbsYAMLReader *reader, void *node, MbsElement *el)
{
  MbsDescription desc = MbsYAMLReaderDescription(reader);
  PetscReal      axis[3];

  PetscFunctionBeginUser;
  PetscCall(MbsYAMLReadBody(reader, node, "body", PETSC_TRUE, &el->body[0]));
  if (el->body[0] == MBS_GROUND) PetscCall(MbsYAMLError(reader, node, "a torque on the ground does nothing; name a body"));
  if (!desc->body[el->body[0]].rigid) PetscCall(MbsYAMLError(reader, node, "a torque on a point mass does nothing; name a rigid body (one with inertia)"));
  PetscCall(MbsYAMLReadAxis(reader, node, "axis", el, axis));
  el->normals = PETSC_TRUE; /* built from the file's branch (el->axis_k): refused where a parameter turns the axis onto it */
  PetscCall(MbsEngineOrderRead(reader, node, "N m", el));
  PetscFunctionReturn(0);
}

/* The maps of the load's generalised force s(t) A^T (B q) (MbsFollowerLoad), A, B those of R n1, R n2 with n1, n2 the
   normals of m = R0^T e at the axis of the last update (geometry.c), and with j >= 0 dA, dB those of R dn1/dp_j,
   R dn2/dp_j, p_j a component of the axis */
static void EngineTorqueMaps(MbsDescription desc, const MbsElement *el, PetscInt j, MbsVectorMap *A, MbsVectorMap *B, MbsVectorMap *dA, MbsVectorMap *dB)
{
  PetscReal e[3], de[3], m[3], dm[3], n[2][3], dn[2][3];

  MbsJointAxisUnit(el, j, e, de);
  MbsDescriptionLocalDirection(desc, el->body[0], e, m);
  MbsDescriptionLocalDirection(desc, el->body[0], de, dm);
  MbsPerpendicularAt(m, el->axis_k, j >= 0 ? dm : NULL, n, dn);
  MbsMapDirection(desc, el->body[0], n[0], A);
  MbsMapDirection(desc, el->body[0], n[1], B);
  if (j < 0) return;
  MbsMapDirection(desc, el->body[0], dn[0], dA);
  MbsMapDirection(desc, el->body[0], dn[1], dB);
}

static PetscErrorCode EngineTorqueForce(MbsDescription desc, const MbsElement *el, PetscReal t, const PetscReal q[], const PetscReal v[], PetscReal F[], PetscReal Jq[], PetscReal Jv[], PetscReal Jp[], PetscInt ld)
{
  MbsVectorMap A, B, dA, dB;

  PetscFunctionBeginUser;
  EngineTorqueMaps(desc, el, -1, &A, &B, NULL, NULL);
  PetscCall(MbsFollowerLoad(desc, el, &A, &B, t, q, F, Jq, Jp, ld));
  for (PetscInt c = 0; c < 3 && Jp; c++) {
    PetscInt j = MbsJointAxisFirst(el, c);

    if (j < 0) continue;
    EngineTorqueMaps(desc, el, j, &A, &B, &dA, &dB);
    MbsFollowerLoadMoved(desc, el, &A, &B, &dA, &dB, t, q, Jp + j * ld, ld);
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode EngineTorqueSecond(MbsDescription desc, const MbsElement *el, PetscReal t, const PetscReal q[], const PetscReal v[], const PetscReal sq[], const PetscReal sv[], PetscInt j, PetscReal Dq[], PetscReal Dv[], PetscInt ld, PetscReal work[])
{
  MbsVectorMap A, B, dA, dB;

  PetscFunctionBeginUser;
  EngineTorqueMaps(desc, el, -1, &A, &B, NULL, NULL);
  PetscCall(MbsFollowerLoadSecond(desc, el, &A, &B, t, j, Dq, ld));
  if (!MbsJointAxisParameter(el, j)) PetscFunctionReturn(0);
  EngineTorqueMaps(desc, el, j, &A, &B, &dA, &dB);
  MbsFollowerLoadMoved(desc, el, &A, &B, &dA, &dB, t, NULL, Dq, ld);
  PetscFunctionReturn(0);
}

static const MbsElementType EngineTorque = {MBS_ELEMENT_EXCITATION, EngineTorqueRead, EngineTorqueForce, NULL, NULL, PETSC_FALSE, MbsEngineOrderValue, NULL, EngineTorqueSecond, PETSC_FALSE, NULL};

PetscErrorCode MbsElementGetType_EngineTorque(const MbsElementType **type)
{
  *type = &EngineTorque;
  return 0;
}
