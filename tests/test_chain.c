static const char help[] = "Checks the cart_pendulum_chain simulation: spectral peaks and the power balance.\n";

/*
  -check spectrum: at the spec's true parameters the amplitude spectrum of phi1 (rectangular window,
  whole interval) has its largest peak at the swing frequency 0.170 Hz (+- 0.01 Hz), and its largest
  peak between 1.0 and 1.7 Hz (bending 1, ~1.36 Hz) lies inside the band [1.25, 1.45] Hz and stands
  above its neighbours.

  -check linearisation: M0, K0 and C0 at the true parameters equal the numbers printed in section 9
  of the spec (to 1e-12 relative).

  -check energy: with the energies of section 3 of the spec, computed here from the spec's formulas,

    E(T) - E(0) = int_0^T [F x' - d_c x'^2 - d_f (theta2'^2 + theta3'^2)] dt

  (trapezoidal rule over the time steps) to 1e-6 relative to the net change E(T) - E(0), which is
  45 times smaller than the work int |F x'| dt that flows in and out during the pulse.
*/
#include "mbstest.h"

typedef struct {
  PetscReal p[9]; /* mc, m, l, g, cf, df, dc, F0, tp */
  PetscReal energy0, energy, work_in, balance, power_prev, t_prev;
  PetscBool started;
} PowerBalance;

static PetscReal ChainEnergy(const PetscReal p[], const PetscReal u[])
{
  PetscReal mc = p[0], m = p[1], l = p[2], g = p[3], cf = p[4], inertia = m * l * l / 12, E;
  PetscReal vx = u[4], cy = 0, px = 0, py = 0; /* height and velocity of the upper joint of link i */

  /* kinetic energy of the cart and of each rod: m/2 |v_C|^2 + I/2 phi'^2 */
  E = 0.5 * mc * vx * vx;
  for (PetscInt i = 0; i < 3; i++) {
    PetscReal phi = u[1 + i], w = u[5 + i];
    PetscReal vcx = vx + px + 0.5 * l * PetscCosReal(phi) * w, vcy = py + 0.5 * l * PetscSinReal(phi) * w;
    PetscReal ycom = cy - 0.5 * l * PetscCosReal(phi);

    E += 0.5 * m * (vcx * vcx + vcy * vcy) + 0.5 * inertia * w * w + m * g * ycom;
    px += l * PetscCosReal(phi) * w;
    py += l * PetscSinReal(phi) * w;
    cy -= l * PetscCosReal(phi);
  }
  E += 0.5 * cf * (PetscSqr(u[2] - u[1]) + PetscSqr(u[3] - u[2]));
  return E;
}

static PetscErrorCode AccumulatePower(MbsModel model, PetscInt step, PetscReal t, const PetscReal u[], void *ctx)
{
  PowerBalance *pb = (PowerBalance *)ctx;
  PetscReal     force, df = pb->p[5], dc = pb->p[6], input, power;

  PetscFunctionBeginUser;
  PetscCall(MbsModelExcitation(model, t, &force));
  input = force * u[4];
  power = input - dc * u[4] * u[4] - df * (PetscSqr(u[6] - u[5]) + PetscSqr(u[7] - u[6]));
  if (!pb->started) {
    pb->energy0 = ChainEnergy(pb->p, u);
    pb->started = PETSC_TRUE;
  } else {
    pb->balance += 0.5 * (t - pb->t_prev) * (power + pb->power_prev);
    pb->work_in += 0.5 * (t - pb->t_prev) * PetscAbsReal(input);
  }
  pb->power_prev = power;
  pb->t_prev     = t;
  pb->energy     = ChainEnergy(pb->p, u);
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckSpectrum(MbsTest *test, MbsModel model)
{
  MbsSignal        signal;
  MbsFourier       fourier;
  const PetscReal *A, *B, *omega;
  PetscInt         n, peak = 0, band_peak = -1;
  PetscReal       *amp, t0, tf;

  PetscFunctionBeginUser;
  PetscCall(MbsModelGetTimeSpan(model, &t0, &tf, NULL));
  PetscCall(MbsSimulate(model, NULL, NULL, NULL, &signal));
  PetscCall(MbsFourierCreate(&fourier));
  PetscCall(MbsFourierAddHarmonics(fourier, "rectangular", t0, tf, 0, 5));
  PetscCall(MbsFourierComputeSignal(fourier, &signal));
  PetscCall(MbsFourierGetNumCoefficients(fourier, &n));
  PetscCall(MbsFourierGetCoefficients(fourier, &A, &B));
  PetscCall(MbsFourierGetFrequencies(fourier, &omega));
  PetscCall(PetscMalloc1(n, &amp));
  for (PetscInt j = 0; j < n; j++) {
    PetscReal f = omega[j] / (2 * PETSC_PI);

    amp[j] = PetscSqrtReal(A[j] * A[j] + B[j] * B[j]);
    if (amp[j] > amp[peak]) peak = j;
    if (f > 1.0 && f < 1.7 && (band_peak < 0 || amp[j] > amp[band_peak])) band_peak = j;
  }
  PetscCall(MbsTestClose(test, "swing peak frequency [Hz]", omega[peak] / (2 * PETSC_PI), 0.170, 0, 0.01));
  PetscCall(MbsTestClose(test, "bending-1 peak frequency [Hz], band [1.25, 1.45]", omega[band_peak] / (2 * PETSC_PI), 1.35, 0, 0.1));
  PetscCall(MbsTestTrue(test, "bending-1 peak stands above both neighbours", (PetscBool)(amp[band_peak] > amp[band_peak - 1] && amp[band_peak] > amp[band_peak + 1])));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "swing amplitude %.4e rad, bending-1 amplitude %.4e rad\n", (double)amp[peak], (double)amp[band_peak]));
  PetscCall(PetscFree(amp));
  PetscCall(MbsFourierDestroy(&fourier));
  PetscCall(MbsSignalDestroy(&signal));
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckEnergy(MbsTest *test, MbsModel model)
{
  MbsSignal    signal;
  PowerBalance pb;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(&pb, sizeof(pb)));
  PetscCall(MbsModelGetParameters(model, pb.p));
  PetscCall(MbsSimulate(model, NULL, AccumulatePower, &pb, &signal));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "E(T) - E(0) = %.12e J, int power = %.12e J, int |F x'| = %.6e J, %" PetscInt_FMT " steps\n", (double)(pb.energy - pb.energy0), (double)pb.balance, (double)pb.work_in, signal.steps));
  PetscCall(MbsTestTrue(test, "the excitation did work", (PetscBool)(pb.work_in > 0)));
  PetscCall(MbsTestClose(test, "(E(T) - E(0) - int power) / |E(T) - E(0)|", (pb.energy - pb.energy0 - pb.balance) / PetscAbsReal(pb.energy - pb.energy0), 0, 0, 1e-6));
  PetscCall(MbsSignalDestroy(&signal));
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckLinearisation(MbsTest *test, MbsModel model)
{
  const PetscReal M0[4][4] = {
    {1.066,  0.2475,  0.1485,  0.0495 },
    {0.2475, 1.0395,  0.66825, 0.22275},
    {0.1485, 0.66825, 0.594,   0.22275},
    {0.0495, 0.22275, 0.22275, 0.1485 }
  };
  const PetscReal K0[4][4] = {
    {0, 0,         0,         0        },
    {0, 12.427975, -10,       0        },
    {0, -10,       21.456785, -10      },
    {0, 0,         -10,       10.485595}
  };
  const PetscReal C0[4][4] = {
    {0.01, 0,     0,     0    },
    {0,    0.02,  -0.02, 0    },
    {0,    -0.02, 0.04,  -0.02},
    {0,    0,     -0.02, 0.02 }
  };
  PetscReal *M, *C, *K;
  PetscInt   nq;
  char       what[64];

  PetscFunctionBeginUser;
  PetscCall(MbsModelLinearize(model, &nq, &M, &C, &K));
  for (PetscInt i = 0; i < 4; i++) {
    for (PetscInt j = 0; j < 4; j++) {
      PetscCall(PetscSNPrintf(what, sizeof(what), "M0(%" PetscInt_FMT ",%" PetscInt_FMT ")", i, j));
      PetscCall(MbsTestClose(test, what, M[i + 4 * j], M0[i][j], 1e-12, 1e-15));
      PetscCall(PetscSNPrintf(what, sizeof(what), "K0(%" PetscInt_FMT ",%" PetscInt_FMT ")", i, j));
      PetscCall(MbsTestClose(test, what, K[i + 4 * j], K0[i][j], 1e-12, 1e-15));
      PetscCall(PetscSNPrintf(what, sizeof(what), "C0(%" PetscInt_FMT ",%" PetscInt_FMT ")", i, j));
      PetscCall(MbsTestClose(test, what, C[i + 4 * j], C0[i][j], 1e-12, 1e-15));
    }
  }
  PetscCall(PetscFree3(M, C, K));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  MbsModel  model;
  MbsTest   test      = {0, 0};
  char      check[32] = "spectrum";
  PetscBool is_energy, is_linearisation;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Chain test", "");
  PetscCall(PetscOptionsString("-check", "spectrum, energy or linearisation", "", check, check, sizeof(check), NULL));
  PetscOptionsEnd();
  PetscCall(MbsModelCreate(PETSC_COMM_WORLD, &model));
  PetscCall(MbsModelSetType(model, "cart_pendulum_chain"));
  PetscCall(MbsModelSetFromOptions(model));
  PetscCall(PetscStrcmp(check, "energy", &is_energy));
  PetscCall(PetscStrcmp(check, "linearisation", &is_linearisation));
  if (is_energy) PetscCall(CheckEnergy(&test, model));
  else if (is_linearisation) PetscCall(CheckLinearisation(&test, model));
  else PetscCall(CheckSpectrum(&test, model));
  PetscCall(MbsTestFinish(&test));
  PetscCall(MbsModelDestroy(&model));
  PetscCall(PetscFinalize());
  return 0;
}
