/*
  Element force: an excitation F(t) e at a body point, e a fixed direction in ground axes and either harmonics

    F(t) = sum_i A_i sin(2 pi f_i t + phi_i)  for t <= until,  0 after    [N]

  or a sine sweep from f0 to f1 over [t0, t1] (zero outside), tau = t - t0, T = t1 - t0,

    F(t) = A sin(2 pi int_0^tau f + phi),   f(tau) = f0 + (f1 - f0) tau / T                 (sweep: linear)
                                            f(tau) = f0 (f1 / f0)^(tau / T)                 (sweep: exponential)
    int_0^tau f = f0 tau + (f1 - f0) tau^2 / (2 T)   or   f0 T ((f1 / f0)^(tau / T) - 1) / ln(f1 / f0).

  Its generalised force is f = P^T e F(t), P the (constant) Jacobian of the point; dF/dA_i, dF/df_i, dF/dphi_i (dF/dA,
  dF/dphi of a sweep) where those are parameters. Fields: body, point (ground coordinates at the initial pose, default
  the centre of mass), direction, then for harmonics amplitudes [N], frequencies [Hz], phases [rad] (default 0), lists
  of equal length (at most 8), until [s] (default: for ever; a pulse of whole periods that ends smoothly, as the cart's
  move of cart_pendulum_chain.md); for a sweep: sweep (linear or exponential), amplitude [N], phase [rad] (default 0),
  frequencies: [f0, f1] (plain numbers, positive, different) [Hz], sweep_time: [t0, t1] [s] (default the file's time).
*/
#include "models/elements/elementimpl.h"

/* sweep, amplitude, phase, frequencies: [f0, f1], sweep_time: [t0, t1] of a sweep (no harmonics' fields) */
static PetscErrorCode SweepRead(MbsYAMLReader *reader, void *node, const char law[], MbsElement *el)
{
  MbsDescription desc  = MbsYAMLReaderDescription(reader);
  MbsSweep      *sweep = &el->sweep;
  MbsValue       other[MBS_MAX_HARMONICS];
  PetscInt       count[2];
  PetscBool      until;

  PetscFunctionBeginUser;
  if (strcmp(law, "linear") && strcmp(law, "exponential")) PetscCall(MbsYAMLError(reader, node, "sweep: '%s' is neither linear nor exponential", law));
  sweep->law = strcmp(law, "linear") ? MBS_SWEEP_EXPONENTIAL : MBS_SWEEP_LINEAR;
  PetscCall(MbsYAMLReadValues(reader, node, "amplitudes", "N", PETSC_FALSE, MBS_MAX_HARMONICS, other, &count[0]));
  PetscCall(MbsYAMLReadValues(reader, node, "phases", "rad", PETSC_FALSE, MBS_MAX_HARMONICS, other, &count[1]));
  PetscCall(MbsYAMLReadNumber(reader, node, "until", &sweep->t[1], &until));
  if (count[0] || count[1] || until) PetscCall(MbsYAMLError(reader, node, "a sweep takes amplitude, phase, frequencies: [f0, f1] and sweep_time: [t0, t1], not the harmonics' amplitudes, phases or until"));
  el->nharmonic      = 1;
  el->harmonic[0][1] = (MbsValue){0, -1}; /* ForceLaw's harmonic of frequency 0, turned by the sweep's angle */
  el->harmonic[0][2] = (MbsValue){0, -1};
  PetscCall(MbsYAMLReadValues(reader, node, "amplitude", "N", PETSC_TRUE, 1, &el->harmonic[0][0], NULL));
  PetscCall(MbsYAMLReadValues(reader, node, "phase", "rad", PETSC_FALSE, 1, &el->harmonic[0][2], NULL));
  PetscCall(MbsYAMLReadVector(reader, node, "frequencies", PETSC_TRUE, 2, sweep->f, NULL));
  sweep->t[0] = desc->t0;
  sweep->t[1] = desc->tf;
  PetscCall(MbsYAMLReadVector(reader, node, "sweep_time", PETSC_FALSE, 2, sweep->t, NULL));
  if (!(sweep->f[0] > 0 && sweep->f[1] > 0)) PetscCall(MbsYAMLError(reader, node, "a sweep's frequencies [f0, f1] must be positive, got [%g, %g] Hz", (double)sweep->f[0], (double)sweep->f[1]));
  if (sweep->f[0] == sweep->f[1]) PetscCall(MbsYAMLError(reader, node, "a sweep from %g Hz to itself is a harmonic: give two different frequencies, or amplitudes and frequencies without sweep", (double)sweep->f[0]));
  if (!(sweep->t[1] > sweep->t[0])) PetscCall(MbsYAMLError(reader, node, "sweep_time [t0, t1] needs t0 < t1, got [%g, %g] s", (double)sweep->t[0], (double)sweep->t[1]));
  PetscFunctionReturn(0);
}

static PetscErrorCode ForceRead(MbsYAMLReader *reader, void *node, MbsElement *el)
{
  MbsValue    values[3][MBS_MAX_HARMONICS];
  PetscInt    count[3], nlaw = 1;
  const char *law[1];
  PetscBool   set;

  PetscFunctionBeginUser;
  PetscCall(MbsYAMLReadBody(reader, node, "body", PETSC_TRUE, &el->body[0]));
  if (el->body[0] == MBS_GROUND) PetscCall(MbsYAMLError(reader, node, "a force on the ground does nothing; name a body"));
  PetscCall(MbsYAMLReadWorldPoint(reader, node, el->body[0], el->vector[0]));
  PetscCall(MbsYAMLReadUnitVector(reader, node, "direction", el->vector[1]));
  PetscCall(MbsYAMLReadWords(reader, node, "sweep", &nlaw, law));
  if (nlaw) {
    PetscCall(SweepRead(reader, node, law[0], el));
    PetscFunctionReturn(0);
  }
  PetscCall(MbsYAMLReadValues(reader, node, "amplitudes", "N", PETSC_TRUE, MBS_MAX_HARMONICS, values[0], &count[0]));
  PetscCall(MbsYAMLReadValues(reader, node, "frequencies", "Hz", PETSC_TRUE, MBS_MAX_HARMONICS, values[1], &count[1]));
  PetscCall(MbsYAMLReadValues(reader, node, "phases", "rad", PETSC_FALSE, MBS_MAX_HARMONICS, values[2], &count[2]));
  if (count[1] != count[0] || (count[2] && count[2] != count[0]))
    PetscCall(MbsYAMLError(reader, node, "amplitudes, frequencies and phases need one entry per harmonic (%" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT ")", count[0], count[1], count[2]));
  el->nharmonic = count[0];
  el->until     = PETSC_MAX_REAL;
  PetscCall(MbsYAMLReadNumber(reader, node, "until", &el->until, &set));
  for (PetscInt i = 0; i < el->nharmonic; i++)
    for (PetscInt j = 0; j < 3; j++) {
      el->harmonic[i][j] = values[j][i];
      if (j == 2 && !count[2]) el->harmonic[i][j] = (MbsValue){0, -1};
    }
  PetscFunctionReturn(0);
}

/* The sweep's phase 2 pi int_0^tau f at t (before phi), and whether t lies in [t0, t1] */
static PetscBool SweepAngle(const MbsSweep *sweep, PetscReal t, PetscReal *angle)
{
  PetscReal tau = t - sweep->t[0], T = sweep->t[1] - sweep->t[0], f0 = sweep->f[0], f1 = sweep->f[1];

  if (tau < 0 || t > sweep->t[1]) return PETSC_FALSE;
  if (sweep->law == MBS_SWEEP_LINEAR) *angle = 2 * PETSC_PI * (f0 * tau + (f1 - f0) * tau * tau / (2 * T));
  else *angle = 2 * PETSC_PI * f0 * T * (PetscPowReal(f1 / f0, tau / T) - 1) / PetscLogReal(f1 / f0);
  return PETSC_TRUE;
}

/* F(t) and dF/dA_i, dF/df_i, dF/dphi_i of the parameters among them, added into dFdp */
static PetscReal ForceLaw(MbsDescription desc, const MbsElement *el, PetscReal t, PetscReal dFdp[])
{
  PetscReal F = 0, sweep = 0; /* a sweep is one harmonic of frequency 0 whose angle adds the sweep's */

  if (el->sweep.law ? !SweepAngle(&el->sweep, t, &sweep) : t > el->until) return 0;
  for (PetscInt i = 0; i < el->nharmonic; i++) {
    const MbsValue *h = el->harmonic[i];
    PetscReal       A = MbsValueOf(&h[0], desc->p), angle = sweep + 2 * PETSC_PI * MbsValueOf(&h[1], desc->p) * t + MbsValueOf(&h[2], desc->p);
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
