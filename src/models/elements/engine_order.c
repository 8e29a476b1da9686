/*
  Engine-order loads of model files (powertrain_mounts.md section 5): a load that rotates with its body, whose size is
  a sum of engine orders of the prescribed crank angle theta(t) and speed w(t) = theta'(t) [rad/s],

    s(t) = sum_h A_h w^k_h cos(o_h theta + phi_h)       (sin: phi_h = -pi/2)

  with theta, w from the model's speed law (section speed: of the file, -stationary_rpm, -ramp_rpm, -ramp_time,
  -speed_profile; engine_speed.c), and the generalised force of a load s(t) A^T (B q) with A, B maps linear in q
  (elementimpl.h): a follower force s R d at a body point P (A = P, B = R d) or the couple of a follower torque.
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
  MbsFollowerLoad - Adds the generalised force f = s(t) A^T (B q) of an engine-order load: F += -f, Jq += -s A^T B,
  Jp += -A^T (B q) ds/dp (any may be NULL). Not collective.
@*/
PetscErrorCode MbsFollowerLoad(MbsDescription desc, const MbsElement *el, const MbsVectorMap *A, const MbsVectorMap *B, PetscReal t, const PetscReal q[], PetscReal F[], PetscReal Jq[], PetscReal Jp[], PetscInt ld)
{
  PetscReal *dsdp = MbsParameterScratch(desc), s, Bq[3];

  PetscFunctionBeginUser;
  if (Jp) PetscCall(PetscArrayzero(dsdp, desc->nparam));
  s = MbsEngineOrderValue(desc, el, t, Jp ? dsdp : NULL);
  MbsMapEval(desc, B, q, PETSC_TRUE, Bq);
  if (F) MbsMapAddTranspose(desc, A, -s, Bq, F, 1);
  if (Jq) MbsMapAddOuter(desc, A, B, NULL, -s, Jq, ld);
  for (PetscInt j = 0; j < desc->nparam && Jp; j++)
    if (dsdp[j] != 0) MbsMapAddTranspose(desc, A, -dsdp[j], Bq, Jp + j * ld, 1);
  PetscFunctionReturn(0);
}

/*@C
  MbsFollowerLoadSecond - The second derivatives of MbsFollowerLoad (MbsElementForceSecondFn): Jq = -s A^T B is constant
  in q and v, so only its parameter j's, Dq += -ds/dp_j A^T B. Not collective.
@*/
PetscErrorCode MbsFollowerLoadSecond(MbsDescription desc, const MbsElement *el, const MbsVectorMap *A, const MbsVectorMap *B, PetscReal t, PetscInt j, PetscReal Dq[], PetscInt ld)
{
  PetscReal *dsdp = MbsParameterScratch(desc);

  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(dsdp, desc->nparam));
  (void)MbsEngineOrderValue(desc, el, t, dsdp);
  if (dsdp[j] != 0) MbsMapAddOuter(desc, A, B, NULL, -dsdp[j], Dq, ld);
  PetscFunctionReturn(0);
}

/*@C
  MbsFollowerLoadMoved - The follower load s(t) A^T (B q) whose maps move with a parameter p_j by dA, dB (either may be
  NULL; a direction or axis that is a parameter, geometry.c): with q, its column Jp_j += -s (dA^T (B q) + A^T (dB q));
  without, the second derivative of Jq = -s A^T B, J += -s (dA^T B + A^T dB) (MbsElementForceSecondFn). Not collective.
@*/
void MbsFollowerLoadMoved(MbsDescription desc, const MbsElement *el, const MbsVectorMap *A, const MbsVectorMap *B, const MbsVectorMap *dA, const MbsVectorMap *dB, PetscReal t, const PetscReal q[], PetscReal J[], PetscInt ld)
{
  PetscReal s = MbsEngineOrderValue(desc, el, t, NULL), x[3];

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
