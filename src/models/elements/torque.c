/*
  Element torque: a torque M(t) = s(t) m [N m] on a rigid body alone (its reaction is not modelled), s(t) the time law of
  force (force.c: harmonics, a sweep, a ramp, a history; MbsTimeLawRead, MbsExcitationLaw) in N m, about a unit axis
  m = a/|a| given in ground axes at the initial pose, whose components may be parameters (unit "1"; geometry.c, "Axes").

  frame: ground (default): m stays fixed in the ground. A rigid body's natural coordinates carry its axes a_j = u, v, w
  (an orthonormal triad), whose virtual rotations delta a_j = delta theta x a_j give

    sum_j a_j x delta a_j = sum_j (delta theta (a_j.a_j) - a_j (a_j.delta theta)) = 3 delta theta - delta theta,

  so delta theta = (1/2) sum_j a_j x delta a_j, and the virtual work M.delta theta = sum_j (1/2) (M x a_j).delta a_j:
  the generalised force on a_j is

    Q_{a_j} = (1/2) M x a_j = (s/2) [m]x a_j,   none on r,

  linear in q. With A_j the map of a_j (the body direction e_j), f = (s/2) sum_j A_j^T [m]x (A_j q), so
  -df/dq = -(s/2) sum_j A_j^T [m]x A_j, -df/dp_k = -(ds/dp_k / 2) sum_j A_j^T [m]x (A_j q) for a parameter of the law and
  -(s/2) sum_j A_j^T [dm/dp_k]x (A_j q) for a component of the axis, dm/dp_k = (I - m m^T) da/dp_k / |a|. Jq is constant
  in q and v: its second derivatives are those by the parameters alone.

  frame: body: m fixed in the body, M = s(t) R R0^T m, the follower torque of engine_torque (a couple of follower forces,
  MbsFollowerTorque, engine_order.c) with this law.

  Fields: body (a rigid body: a point mass has no rotation), axis, frame, and the law's fields in N m. input: true is
  force's alone.
*/
#include "models/elements/elementimpl.h"

static PetscErrorCode TorqueRead(MbsYAMLReader *reader, void *node, MbsElement *el)
{
  PetscReal axis[3];

  PetscFunctionBeginUser;
  PetscCall(MbsTorqueReadBodyAxis(reader, node, el, axis));
  PetscCall(MbsSensorReadFrame(reader, node, el->body[0], axis, &el->turning)); /* frame: as a sensor's; the maps turn the axis themselves (MbsJointAxisUnit) */
  if (MbsYAMLHasField(reader, node, "input")) PetscCall(MbsYAMLError(reader, node, "input: a torque takes none; -input_file and a controller drive a force with input: true"));
  el->normals = el->turning; /* the couple's normals come from the file's branch (el->axis_k): refused where a parameter turns the axis onto it */
  PetscCall(MbsTimeLawRead(reader, node, "N m", el));
  PetscFunctionReturn(0);
}

/* The ground torque's -f += -(scale/2) sum_j A_j^T [m]x (A_j q) into F (with q) and -(scale/2) sum_j A_j^T [m]x A_j into
   J (either may be NULL) */
static void GroundTorque(MbsDescription desc, const MbsElement *el, PetscReal scale, const PetscReal m[3], const PetscReal q[], PetscReal F[], PetscReal J[], PetscInt ld)
{
  const PetscReal cross[9] = {0, -m[2], m[1], m[2], 0, -m[0], -m[1], m[0], 0}; /* [m]x, row by row */

  for (PetscInt j = 0; j < 3; j++) {
    PetscReal    unit[3] = {0, 0, 0}, a[3], mxa[3];
    MbsVectorMap A;

    unit[j] = 1;
    MbsMapDirection(desc, el->body[0], unit, &A);
    if (F) {
      MbsMapEval(desc, &A, q, PETSC_TRUE, a);
      mxa[0] = m[1] * a[2] - m[2] * a[1];
      mxa[1] = m[2] * a[0] - m[0] * a[2];
      mxa[2] = m[0] * a[1] - m[1] * a[0];
      MbsMapAddTranspose(desc, &A, -scale / 2, mxa, F, 1);
    }
    if (J) MbsMapAddOuter(desc, &A, &A, cross, -scale / 2, J, ld);
  }
}

static PetscErrorCode TorqueForce(MbsDescription desc, const MbsElement *el, PetscReal t, const PetscReal q[], const PetscReal v[], PetscReal F[], PetscReal Jq[], PetscReal Jv[], PetscReal Jp[], PetscInt ld)
{
  PetscReal *dsdp = MbsParameterScratch(desc), s, m[3], dm[3];

  PetscFunctionBeginUser;
  if (el->turning) PetscFunctionReturn(MbsFollowerTorque(desc, el, t, q, v, F, Jq, Jv, Jp, ld));
  if (Jp) PetscCall(PetscArrayzero(dsdp, desc->nparam));
  s = MbsExcitationLaw(desc, el, t, Jp ? dsdp : NULL);
  MbsJointAxisUnit(el, -1, m, dm);
  GroundTorque(desc, el, s, m, q, F, Jq, ld);
  for (PetscInt j = 0; j < desc->nparam && Jp; j++)
    if (dsdp[j] != 0) GroundTorque(desc, el, dsdp[j], m, q, Jp + j * ld, NULL, ld);
  for (PetscInt c = 0; c < 3 && Jp; c++) {
    PetscInt j = MbsJointAxisFirst(el, c);

    if (j < 0) continue;
    MbsJointAxisUnit(el, j, m, dm);
    GroundTorque(desc, el, s, dm, q, Jp + j * ld, NULL, ld);
  }
  PetscFunctionReturn(0);
}

/* Jq = -(s/2) sum_j A_j^T [m]x A_j is constant in q and v: its derivative along p_j, by the law's parameters and the axis' */
static PetscErrorCode TorqueSecond(MbsDescription desc, const MbsElement *el, PetscReal t, const PetscReal q[], const PetscReal v[], const PetscReal sq[], const PetscReal sv[], PetscInt j, PetscReal Dq[], PetscReal Dv[], PetscInt ld, PetscReal work[])
{
  PetscReal *dsdp = MbsParameterScratch(desc), s, m[3], dm[3];

  PetscFunctionBeginUser;
  if (el->turning) PetscFunctionReturn(MbsFollowerTorqueSecond(desc, el, t, q, v, sq, sv, j, Dq, Dv, ld, work));
  PetscCall(PetscArrayzero(dsdp, desc->nparam));
  s = MbsExcitationLaw(desc, el, t, dsdp);
  MbsJointAxisUnit(el, MbsJointAxisParameter(el, j) ? j : -1, m, dm);
  if (dsdp[j] != 0) GroundTorque(desc, el, dsdp[j], m, NULL, NULL, Dq, ld);
  if (MbsJointAxisParameter(el, j)) GroundTorque(desc, el, s, dm, NULL, NULL, Dq, ld);
  PetscFunctionReturn(0);
}

static const MbsElementType Torque = {MBS_ELEMENT_EXCITATION, TorqueRead, TorqueForce, NULL, NULL, PETSC_FALSE, MbsExcitationLaw, NULL, TorqueSecond, PETSC_FALSE, NULL};

PetscErrorCode MbsElementGetType_Torque(const MbsElementType **type)
{
  *type = &Torque;
  return 0;
}
