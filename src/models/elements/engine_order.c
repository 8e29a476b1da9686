/*
  Engine-order loads of model files (powertrain_mounts.md section 5): a load that rotates with its body, whose size is
  a sum of engine orders of the prescribed crank angle theta(t) and speed w(t) = theta'(t) [rad/s],

    s(t) = sum_h A_h w^k_h cos(o_h theta + phi_h)       (sin: phi_h = -pi/2)

  with theta, w from the model's speed law (section speed: of the file, -stationary_rpm, -ramp_rpm, -ramp_time,
  -speed_profile; engine_speed.c), and the generalised force of a follower load s(t) A^T (B q) with A, B maps linear
  in q (elementimpl.h): a follower force s R d at a body point P (A = P, B = R d) or the couple of a follower torque,
  whatever the law s(t) of the element's type (el->ops->law): an engine order's here, force.c's time law of force and
  torque with frame: body.

  A follower force (engine_force; force with frame: body): F = s(t) R d at P, d = R0^T e a unit direction fixed in the
  body (e = a/|a| in ground axes at the initial pose). In natural coordinates R d and P are linear in q, so the
  generalised force s P^T (R d) and its Jacobian s P^T D (D: the map of R d) are exact. A coordinate of the point may be
  a parameter p_j (geometry.c): with G = dP/dp_j (linear in q), -df/dp_j = -s G^T (B q) and the derivative of
  Jq = -s A^T B is -s G^T B. So may a component of the direction a (unit "1"; geometry.c, "Axes"): with D the map of
  R dd/dp_j, dd/dp_j = R0^T (I - e e^T) da/dp_j / |a|, -df/dp_j = -s A^T (D q) and the derivative of Jq is -s A^T D.

  A follower torque (engine_torque; torque with frame: body): M = s(t) R m about a unit axis m = R0^T e fixed in the
  body, applied as the couple of the follower forces s R n2 at the body directions n1 and -s R n2 at -n1 (n1 x n2 = m,
  both unit), whose generalised force s N1^T (N2 q) (N1, N2: the maps of R n1, R n2) has the virtual work
  s (delta theta x R n1).(R n2) = s delta theta.R m, and is linear in q. A component p_j of the axis moves m and its
  normals (built from the file's branch, MbsPerpendicularAt()), so -df/dp_j = -s (dN1^T (N2 q) + N1^T (dN2 q)) and the
  derivative of Jq = -s N1^T N2 is -s (dN1^T N2 + N1^T dN2), dN_i the maps of R dn_i/dp_j.
*/
#include "models/elements/elementimpl.h"

/*@C
  MbsEngineOrderRead - The fields of an engine-order law: orders [-], amplitudes (each a number or {param: NAME}, in
  unit s^power, unit times (s/rad)^power), powers of w (default 0), phases [rad] (default 0), functions cos or sin (default cos).
@*/
PetscErrorCode MbsEngineOrderRead(MbsYAMLReader *reader, void *node, const char unit[], MbsElement *el)
{
  MbsDescription desc = MbsYAMLReaderDescription(reader);
  MbsValue       values[4][MBS_MAX_HARMONICS];
  PetscInt       count[4];
  const char    *key[4] = {"amplitudes", "orders", "phases", "powers"};
  char           amplitude_unit[64];

  PetscFunctionBeginUser;
  PetscCall(MbsYAMLReadValues(reader, node, key[3], "-", PETSC_FALSE, MBS_MAX_HARMONICS, values[3], &count[3]));
  { /* an amplitude times w^k [rad/s]^k is the load: N s^k (rad is no unit); mixed powers name it by power */
    PetscBool same = PETSC_TRUE;

    for (PetscInt i = 1; i < count[3]; i++) same = (PetscBool)(same && values[3][i].value == values[3][0].value);
    if (!count[3] || (same && values[3][0].value == 0)) PetscCall(PetscStrncpy(amplitude_unit, unit, sizeof(amplitude_unit)));
    else if (same) PetscCall(PetscSNPrintf(amplitude_unit, sizeof(amplitude_unit), "%s s^%g", unit, (double)values[3][0].value));
    else PetscCall(PetscSNPrintf(amplitude_unit, sizeof(amplitude_unit), "%s s^power", unit));
  }
  PetscCall(MbsYAMLReadValues(reader, node, key[0], amplitude_unit, PETSC_TRUE, MBS_MAX_HARMONICS, values[0], &count[0]));
  PetscCall(MbsYAMLReadValues(reader, node, key[1], "-", PETSC_TRUE, MBS_MAX_HARMONICS, values[1], &count[1]));
  PetscCall(MbsYAMLReadValues(reader, node, key[2], "rad", PETSC_FALSE, MBS_MAX_HARMONICS, values[2], &count[2]));
  for (PetscInt j = 1; j < 4; j++)
    if ((j < 2 || count[j]) && count[j] != count[0]) PetscCall(MbsYAMLError(reader, node, "%s needs one entry per order (%" PetscInt_FMT " amplitudes, %" PetscInt_FMT " %s)", key[j], count[0], count[j], key[j]));
  for (PetscInt j = 1; j < 4; j += 2)
    for (PetscInt i = 0; i < count[j]; i++)
      if (values[j][i].param >= 0) PetscCall(MbsYAMLError(reader, node, "%s must be numbers, not parameters (amplitudes and phases may be parameters)", key[j]));
  el->nharmonic = count[0];
  for (PetscInt i = 0; i < el->nharmonic; i++)
    for (PetscInt j = 0; j < 4; j++) el->harmonic[i][j] = (j < 2 || count[j]) ? values[j][i] : (MbsValue){0, -1};
  {
    const char *function[MBS_MAX_HARMONICS];
    PetscInt    nfunction = MBS_MAX_HARMONICS;

    PetscCall(MbsYAMLReadWords(reader, node, "functions", &nfunction, function));
    if (nfunction && nfunction != el->nharmonic) PetscCall(MbsYAMLError(reader, node, "functions needs one entry per order (%" PetscInt_FMT " amplitudes, %" PetscInt_FMT " functions)", el->nharmonic, nfunction));
    for (PetscInt i = 0; i < nfunction; i++) {
      if (strcmp(function[i], "cos") && strcmp(function[i], "sin")) PetscCall(MbsYAMLError(reader, node, "functions: '%s' is neither cos nor sin", function[i]));
      el->sine[i] = (PetscBool)!strcmp(function[i], "sin");
    }
  }
  desc->engine_order = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/*@C
  MbsEngineOrderValue - s(t) of the element's law, and ds/dp into dsdp (length np, may be NULL; added). Not collective.
@*/
PetscReal MbsEngineOrderValue(MbsDescription desc, const MbsElement *el, PetscReal t, PetscReal dsdp[])
{
  PetscReal theta, rpm, w, s = 0;

  MbsSpeedProfileAngle(&desc->speed, t, &theta, &rpm);
  w = 2 * PETSC_PI * rpm / 60;
  for (PetscInt h = 0; h < el->nharmonic; h++) {
    const MbsValue *H = el->harmonic[h];
    PetscReal       A = MbsValueOf(&H[0], desc->p), scale = PetscPowReal(w, H[3].value);
    PetscReal       angle = H[1].value * theta + MbsValueOf(&H[2], desc->p) - (el->sine[h] ? PETSC_PI / 2 : 0);

    s += A * scale * PetscCosReal(angle);
    if (dsdp && H[0].param >= 0) dsdp[H[0].param] += scale * PetscCosReal(angle);
    if (dsdp && H[2].param >= 0) dsdp[H[2].param] -= A * scale * PetscSinReal(angle);
  }
  return s;
}

/*@C
  MbsTorqueReadBodyAxis - The body of a torque (a rigid body: the ground and a point mass are refused) and its axis
  (ground axes at the initial pose, components may be parameters; its unit vector into axis): engine_torque's and
  torque's. Not collective.
@*/
PetscErrorCode MbsTorqueReadBodyAxis(MbsYAMLReader *reader, void *node, MbsElement *el, PetscReal axis[3])
{
  MbsDescription desc = MbsYAMLReaderDescription(reader);

  PetscFunctionBeginUser;
  PetscCall(MbsYAMLReadBody(reader, node, "body", PETSC_TRUE, &el->body[0]));
  if (el->body[0] == MBS_GROUND) PetscCall(MbsYAMLError(reader, node, "a torque on the ground does nothing; name a body"));
  if (!desc->body[el->body[0]].rigid) PetscCall(MbsYAMLError(reader, node, "a torque on a point mass does nothing; name a rigid body (one with inertia)"));
  PetscCall(MbsYAMLReadAxis(reader, node, "axis", el, axis));
  PetscFunctionReturn(0);
}

/* Adds the generalised force f = s(t) A^T (B q) of a follower load: F += -f, Jq += -s A^T B, Jp += -A^T (B q) ds/dp
   (any may be NULL), s the law of the element's type, into *size for the moved maps' terms (FollowerLoadMoved) */
static PetscErrorCode FollowerLoad(MbsDescription desc, const MbsElement *el, const MbsVectorMap *A, const MbsVectorMap *B, PetscReal t, const PetscReal q[], PetscReal F[], PetscReal Jq[], PetscReal Jp[], PetscInt ld, PetscReal *size)
{
  PetscReal *dsdp = MbsParameterScratch(desc), s, Bq[3];

  PetscFunctionBeginUser;
  if (Jp) PetscCall(PetscArrayzero(dsdp, desc->nparam));
  s = *size = el->ops->law(desc, el, t, Jp ? dsdp : NULL);
  MbsMapEval(desc, B, q, PETSC_TRUE, Bq);
  if (F) MbsMapAddTranspose(desc, A, -s, Bq, F, 1);
  if (Jq) MbsMapAddOuter(desc, A, B, NULL, -s, Jq, ld);
  for (PetscInt j = 0; j < desc->nparam && Jp; j++)
    if (dsdp[j] != 0) MbsMapAddTranspose(desc, A, -dsdp[j], Bq, Jp + j * ld, 1);
  PetscFunctionReturn(0);
}

/* The second derivatives of FollowerLoad (MbsElementForceSecondFn): Jq = -s A^T B is constant in q and v, so only its
   parameter j's, Dq += -ds/dp_j A^T B; s into *size */
static PetscErrorCode FollowerLoadSecond(MbsDescription desc, const MbsElement *el, const MbsVectorMap *A, const MbsVectorMap *B, PetscReal t, PetscInt j, PetscReal Dq[], PetscInt ld, PetscReal *size)
{
  PetscReal *dsdp = MbsParameterScratch(desc);

  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(dsdp, desc->nparam));
  *size = el->ops->law(desc, el, t, dsdp);
  if (dsdp[j] != 0) MbsMapAddOuter(desc, A, B, NULL, -dsdp[j], Dq, ld);
  PetscFunctionReturn(0);
}

/* The follower load s A^T (B q) (s of FollowerLoad or FollowerLoadSecond) whose maps move with a parameter p_j by dA,
   dB (either may be NULL; a point, direction or axis that is a parameter, geometry.c): with q, its column
   Jp_j += -s (dA^T (B q) + A^T (dB q)); without, the second derivative of Jq = -s A^T B, J += -s (dA^T B + A^T dB)
   (MbsElementForceSecondFn) */
static void FollowerLoadMoved(MbsDescription desc, const MbsVectorMap *A, const MbsVectorMap *B, const MbsVectorMap *dA, const MbsVectorMap *dB, PetscReal s, const PetscReal q[], PetscReal J[], PetscInt ld)
{
  PetscReal x[3];

  if (dA && q) {
    MbsMapEval(desc, B, q, PETSC_TRUE, x);
    MbsMapAddTranspose(desc, dA, -s, x, J, 1);
  }
  if (dB && q) {
    MbsMapEval(desc, dB, q, PETSC_TRUE, x);
    MbsMapAddTranspose(desc, A, -s, x, J, 1);
  }
  if (dA && !q) MbsMapAddOuter(desc, dA, B, NULL, -s, J, ld);
  if (dB && !q) MbsMapAddOuter(desc, A, dB, NULL, -s, J, ld);
}

/* The maps of a follower force's s(t) A^T (B q): A = P, B = R d with d = R0^T e at the direction of the last update
   (geometry.c), and with j >= 0 dB = R dd/dp_j, p_j a component of the direction */
static void ForceMaps(MbsDescription desc, const MbsElement *el, PetscInt j, MbsVectorMap *A, MbsVectorMap *B, MbsVectorMap *dB)
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

/*@C
  MbsFollowerForce - The force callback (MbsElementForceFn) of a follower force s(t) R d at the point el->vector[0] of
  el->body[0], d fixed in the body along the element's axis (ground axes at the initial pose; its components and the
  point's coordinates may be parameters), s the law of the element's type. Not collective.
@*/
PetscErrorCode MbsFollowerForce(MbsDescription desc, const MbsElement *el, PetscReal t, const PetscReal q[], const PetscReal v[], PetscReal F[], PetscReal Jq[], PetscReal Jv[], PetscReal Jp[], PetscInt ld)
{
  MbsVectorMap A, B, D;
  PetscReal    s;

  PetscFunctionBeginUser;
  ForceMaps(desc, el, -1, &A, &B, NULL);
  PetscCall(FollowerLoad(desc, el, &A, &B, t, q, F, Jq, Jp, ld, &s));
  for (PetscInt n = 0; n < el->ngeometry && Jp; n++) {
    if (!MbsGeometryFirst(el, n)) continue;
    MbsGeometryPointDerivative(desc, el, 0, el->geometry[n].param, &D);
    FollowerLoadMoved(desc, &A, &B, &D, NULL, s, q, Jp + el->geometry[n].param * ld, ld);
  }
  for (PetscInt c = 0; c < 3 && Jp; c++) {
    PetscInt j = MbsJointAxisFirst(el, c);

    if (j < 0) continue;
    ForceMaps(desc, el, j, &A, &B, &D);
    FollowerLoadMoved(desc, &A, &B, NULL, &D, s, q, Jp + j * ld, ld);
  }
  PetscFunctionReturn(0);
}

/*@C
  MbsFollowerForceSecond - The second derivatives of MbsFollowerForce (MbsElementForceSecondFn). Not collective.
@*/
PetscErrorCode MbsFollowerForceSecond(MbsDescription desc, const MbsElement *el, PetscReal t, const PetscReal q[], const PetscReal v[], const PetscReal sq[], const PetscReal sv[], PetscInt j, PetscReal Dq[], PetscReal Dv[], PetscInt ld, PetscReal work[])
{
  MbsVectorMap A, B, D;
  PetscReal    s;

  PetscFunctionBeginUser;
  ForceMaps(desc, el, -1, &A, &B, NULL);
  PetscCall(FollowerLoadSecond(desc, el, &A, &B, t, j, Dq, ld, &s));
  if (MbsGeometryPointDerivative(desc, el, 0, j, &D)) FollowerLoadMoved(desc, &A, &B, &D, NULL, s, NULL, Dq, ld);
  if (!MbsJointAxisParameter(el, j)) PetscFunctionReturn(0);
  ForceMaps(desc, el, j, &A, &B, &D);
  FollowerLoadMoved(desc, &A, &B, NULL, &D, s, NULL, Dq, ld);
  PetscFunctionReturn(0);
}

/* The maps of a follower torque's couple s(t) A^T (B q): A, B those of R n1, R n2 with n1, n2 the normals of
   m = R0^T e at the axis of the last update (geometry.c), and with j >= 0 dA, dB those of R dn1/dp_j, R dn2/dp_j, p_j a
   component of the axis */
static void TorqueMaps(MbsDescription desc, const MbsElement *el, PetscInt j, MbsVectorMap *A, MbsVectorMap *B, MbsVectorMap *dA, MbsVectorMap *dB)
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

/*@C
  MbsFollowerTorque - The force callback (MbsElementForceFn) of a follower torque s(t) R m on el->body[0] alone, m fixed
  in the body along the element's axis (ground axes at the initial pose; its components may be parameters; the element
  sets el->normals), s the law of the element's type. Not collective.
@*/
PetscErrorCode MbsFollowerTorque(MbsDescription desc, const MbsElement *el, PetscReal t, const PetscReal q[], const PetscReal v[], PetscReal F[], PetscReal Jq[], PetscReal Jv[], PetscReal Jp[], PetscInt ld)
{
  MbsVectorMap A, B, dA, dB;
  PetscReal    s;

  PetscFunctionBeginUser;
  TorqueMaps(desc, el, -1, &A, &B, NULL, NULL);
  PetscCall(FollowerLoad(desc, el, &A, &B, t, q, F, Jq, Jp, ld, &s));
  for (PetscInt c = 0; c < 3 && Jp; c++) {
    PetscInt j = MbsJointAxisFirst(el, c);

    if (j < 0) continue;
    TorqueMaps(desc, el, j, &A, &B, &dA, &dB);
    FollowerLoadMoved(desc, &A, &B, &dA, &dB, s, q, Jp + j * ld, ld);
  }
  PetscFunctionReturn(0);
}

/*@C
  MbsFollowerTorqueSecond - The second derivatives of MbsFollowerTorque (MbsElementForceSecondFn). Not collective.
@*/
PetscErrorCode MbsFollowerTorqueSecond(MbsDescription desc, const MbsElement *el, PetscReal t, const PetscReal q[], const PetscReal v[], const PetscReal sq[], const PetscReal sv[], PetscInt j, PetscReal Dq[], PetscReal Dv[], PetscInt ld, PetscReal work[])
{
  MbsVectorMap A, B, dA, dB;
  PetscReal    s;

  PetscFunctionBeginUser;
  TorqueMaps(desc, el, -1, &A, &B, NULL, NULL);
  PetscCall(FollowerLoadSecond(desc, el, &A, &B, t, j, Dq, ld, &s));
  if (!MbsJointAxisParameter(el, j)) PetscFunctionReturn(0);
  TorqueMaps(desc, el, j, &A, &B, &dA, &dB);
  FollowerLoadMoved(desc, &A, &B, &dA, &dB, s, NULL, Dq, ld);
  PetscFunctionReturn(0);
}
