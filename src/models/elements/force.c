/*
  Element force: an excitation F(t) e at a body point, e a fixed direction in ground axes and

    F(t) = sum_i A_i sin(2 pi f_i t + phi_i)  for t <= until,  0 after    [N]

  Its generalised force is f = P^T e F(t), P the (constant) Jacobian of the point; dF/dA_i, dF/df_i, dF/dphi_i where
  those are parameters. Fields: body, point (ground coordinates at the initial pose, default the centre of mass),
  direction, amplitudes [N], frequencies [Hz], phases [rad] (default 0), lists of equal length (at most 8), until [s]
  (default: for ever; a pulse of whole periods that ends smoothly, as the cart's move of cart_pendulum_chain.md).
*/
#include "models/elements/elementimpl.h"

static PetscErrorCode ForceRead(MbsYAMLReader *reader, void *node, MbsElement *el)
{
  MbsValue values[3][MBS_MAX_HARMONICS];
  PetscInt count[3];

  PetscFunctionBeginUser;
  PetscCall(MbsYAMLReadBody(reader, node, "body", PETSC_TRUE, &el->body[0]));
  if (el->body[0] == MBS_GROUND) PetscCall(MbsYAMLError(reader, node, "a force on the ground does nothing; name a body"));
  PetscCall(MbsYAMLReadWorldPoint(reader, node, el->body[0], el->vector[0]));
  PetscCall(MbsYAMLReadUnitVector(reader, node, "direction", el->vector[1]));
  PetscCall(MbsYAMLReadValues(reader, node, "amplitudes", "N", PETSC_TRUE, MBS_MAX_HARMONICS, values[0], &count[0]));
  PetscCall(MbsYAMLReadValues(reader, node, "frequencies", "Hz", PETSC_TRUE, MBS_MAX_HARMONICS, values[1], &count[1]));
  PetscCall(MbsYAMLReadValues(reader, node, "phases", "rad", PETSC_FALSE, MBS_MAX_HARMONICS, values[2], &count[2]));
  if (count[1] != count[0] || (count[2] && count[2] != count[0]))
    PetscCall(MbsYAMLError(reader, node, "amplitudes, frequencies and phases need one entry per harmonic (%" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT ")", count[0], count[1], count[2]));
  el->nharmonic = count[0];
  {
    PetscBool set;

    el->until = PETSC_MAX_REAL;
    PetscCall(MbsYAMLReadNumber(reader, node, "until", &el->until, &set));
  }
  for (PetscInt i = 0; i < el->nharmonic; i++)
    for (PetscInt j = 0; j < 3; j++) {
      el->harmonic[i][j] = values[j][i];
      if (j == 2 && !count[2]) el->harmonic[i][j] = (MbsValue){0, -1};
    }
  PetscFunctionReturn(0);
}

/* F(t) and dF/dA_i, dF/df_i, dF/dphi_i of the parameters among them, added into dFdp */
static PetscReal ForceLaw(MbsDescription desc, const MbsElement *el, PetscReal t, PetscReal dFdp[])
{
  PetscReal F = 0;

  if (t > el->until) return 0;
  for (PetscInt i = 0; i < el->nharmonic; i++) {
    const MbsValue *h = el->harmonic[i];
    PetscReal       A = MbsValueOf(&h[0], desc->p), angle = 2 * PETSC_PI * MbsValueOf(&h[1], desc->p) * t + MbsValueOf(&h[2], desc->p);
    PetscReal       dF[3] = {PetscSinReal(angle), A * PetscCosReal(angle) * 2 * PETSC_PI * t, A * PetscCosReal(angle)};

    F += A * PetscSinReal(angle);
    for (PetscInt j = 0; j < 3 && dFdp; j++)
      if (h[j].param >= 0) dFdp[h[j].param] += dF[j];
  }
  return F;
}

static PetscErrorCode ForceForce(MbsDescription desc, const MbsElement *el, PetscReal t, const PetscReal q[], const PetscReal v[], PetscReal F[], PetscReal Jq[], PetscReal Jv[], PetscReal Jp[], PetscInt ld)
{
  PetscReal   *dFdp = MbsParameterScratch(desc), size;
  MbsVectorMap P;

  PetscFunctionBeginUser;
  if (Jp) PetscCall(PetscArrayzero(dFdp, desc->nparam));
  size = ForceLaw(desc, el, t, Jp ? dFdp : NULL);
  MbsMapPoint(desc, el->body[0], el->vector[0], &P);
  if (F) MbsMapAddTranspose(desc, &P, -size, el->vector[1], F, 1);
  for (PetscInt j = 0; j < desc->nparam && Jp; j++)
    if (dFdp[j] != 0) MbsMapAddTranspose(desc, &P, -dFdp[j], el->vector[1], Jp + j * ld, 1);
  PetscFunctionReturn(0);
}

static const MbsElementType Force = {MBS_ELEMENT_EXCITATION, ForceRead, ForceForce, NULL, NULL, PETSC_FALSE, ForceLaw, NULL};

PetscErrorCode MbsElementGetType_Force(const MbsElementType **type)
{
  *type = &Force;
  return 0;
}
