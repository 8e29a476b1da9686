/*
  mbsid frf: the complex frequency response H_c(f) of every output channel of the model's linearisation about its
  operating point (core/frf.c), per newton of a unit load on a force element (-frf_load, default the first excitation),
  at the frequencies of -frequencies, as a table and in -o FILE, a measurement file that -cost frf compares with:

    /frf/frequency_hz (attribute load), /channels/NAME/frf/real, /channels/NAME/frf/imag   [unit of NAME per N]

  -frf_noise sigma adds independent complex Gaussian noise of standard deviation sigma max_j |H_c(f_j)| to each
  H_c(f_j) (beam_bushings.md 9.4): real and imaginary parts each sigma max_j |H_c| / sqrt(2), from the seeded
  sequence of -frf_seed in the order channel, frequency, (re, im).
*/
#include "commands/commandimpl.h"

#define MBS_FRF_MAX_FREQUENCIES 1024

typedef struct {
  MbsModel       model;
  MbsMeasurement meas;
  PetscReal     *H, *noise;
} MbsFrfCommand;

static PetscErrorCode MbsFrfCommandDestroy_Private(MbsFrfCommand *fc)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree2(fc->H, fc->noise));
  PetscCall(MbsMeasurementReset(&fc->meas));
  PetscCall(MbsModelDestroy(&fc->model));
  PetscFunctionReturn(0);
}

/* The measurement file of the response: one channel group per output channel, the frequencies at the root */
static PetscErrorCode MbsFrfMeasurement_Private(MbsFrfCommand *fc, PetscInt nf, const PetscReal f[], PetscInt nchannel, const char load[], PetscReal sigma, PetscInt seed)
{
  MbsMeasurement *meas  = &fc->meas;
  MbsModel        model = fc->model;

  PetscFunctionBeginUser;
  PetscCall(PetscStrncpy(meas->model, model->type, sizeof(meas->model)));
  PetscCall(PetscStrncpy(meas->created_by, "mbsid frf", sizeof(meas->created_by)));
  PetscCall(PetscStrncpy(meas->frf_load, load, sizeof(meas->frf_load)));
  meas->nfrf = nf;
  PetscCall(PetscMalloc1(nf, &meas->frf_frequency));
  PetscCall(PetscArraycpy(meas->frf_frequency, f, nf));
  PetscCall(PetscCalloc1(nchannel, &meas->channel));
  if (sigma > 0) PetscCall(MbsNormalSequence(seed, 2 * nf * nchannel, fc->noise));
  for (PetscInt c = 0; c < nchannel; c++) {
    MbsMeasurement *channel = &meas->channel[c];
    const char     *name, *unit;
    PetscReal       size = 0;

    meas->nchannel++;
    PetscCall(MbsModelGetChannelInfo(model, c, &name, &unit));
    PetscCall(PetscStrncpy(channel->output, name, sizeof(channel->output)));
    PetscCall(PetscStrncpy(channel->units, unit, sizeof(channel->units)));
    channel->nfrf = nf;
    PetscCall(PetscMalloc1(nf, &channel->frf_re));
    PetscCall(PetscMalloc1(nf, &channel->frf_im));
    for (PetscInt j = 0; j < nf; j++) size = PetscMax(size, PetscSqrtReal(PetscSqr(fc->H[2 * (j * nchannel + c)]) + PetscSqr(fc->H[2 * (j * nchannel + c) + 1])));
    for (PetscInt j = 0; j < nf; j++) {
      const PetscReal *n = fc->noise + 2 * (c * nf + j), scale = sigma * size / PetscSqrtReal(2.0);

      channel->frf_re[j] = fc->H[2 * (j * nchannel + c)] + (sigma > 0 ? scale * n[0] : 0);
      channel->frf_im[j] = fc->H[2 * (j * nchannel + c) + 1] + (sigma > 0 ? scale * n[1] : 0);
    }
  }
  PetscFunctionReturn(0);
}

/* The table: per frequency and channel Re H, Im H, |H| */
static PetscErrorCode MbsFrfView_Private(MPI_Comm comm, MbsFrfCommand *fc, PetscInt nf, const PetscReal f[], PetscInt nchannel, const char load[])
{
  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(comm, "Frequency response of the linearisation of %s per newton of load %s:\n  f [Hz]     channel          Re H                    Im H                    |H|\n", fc->model->type, load));
  for (PetscInt j = 0; j < nf; j++)
    for (PetscInt c = 0; c < nchannel; c++) {
      const char *name, *unit;
      PetscReal   re = fc->meas.channel[c].frf_re[j], im = fc->meas.channel[c].frf_im[j];

      PetscCall(MbsModelGetChannelInfo(fc->model, c, &name, &unit));
      PetscCall(PetscPrintf(comm, "  %-10.6g %-8s %23.15e %23.15e %13.6e %s/N\n", (double)f[j], name, (double)re, (double)im, (double)PetscSqrtReal(re * re + im * im), unit));
    }
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsFrfRun_Private(MPI_Comm comm, MbsFrfCommand *fc)
{
  char      output[PETSC_MAX_PATH_LEN] = "frf.h5", load[64] = "";
  PetscReal f[MBS_FRF_MAX_FREQUENCIES], sigma               = 0;
  PetscInt  nf = MBS_FRF_MAX_FREQUENCIES, seed = 1, nchannel;
  PetscBool help, set;

  PetscFunctionBeginUser;
  MbsOptionsBegin(comm, NULL, "mbsid frf: frequency response of the linearised model", "frf");
  PetscCall(MbsOptionsOutputFile(PetscOptionsObject, "-o", "Result and measurement file (HDF5): /frf/frequency_hz, /channels/NAME/frf/{real,imag}", output, sizeof(output)));
  PetscCall(MbsOptionsRealArray(PetscOptionsObject, "-frequencies", "Frequencies f_1 < f_2 < ... [Hz], > 0 (required)", "", 0, f, &nf, &set));
  PetscCall(PetscOptionsString("-frf_load", "Force element loaded with a unit force (default: the model's first excitation)", "", load, load, sizeof(load), NULL));
  PetscCall(PetscOptionsReal("-frf_noise", "sigma: complex Gaussian noise of standard deviation sigma max_j |H_c(f_j)| on each H_c(f_j) (0: none)", "", sigma, &sigma, NULL));
  PetscCall(PetscOptionsInt("-frf_seed", "Seed of the noise of -frf_noise", "", seed, &seed, NULL));
  MbsOptionsEnd();
  PetscCall(MbsModelCreate(comm, &fc->model));
  PetscCall(MbsModelSetFromOptions(fc->model));
  PetscCall(PetscOptionsHasHelp(NULL, &help));
  if (help) PetscFunctionReturn(0);
  PetscCheck(set && nf > 0, comm, PETSC_ERR_ARG_WRONG, "mbsid frf needs -frequencies f1,f2,... [Hz]");
  for (PetscInt j = 0; j < nf; j++) {
    PetscCheck(f[j] > 0 && !PetscIsInfOrNanReal(f[j]), comm, PETSC_ERR_ARG_OUTOFRANGE, "-frequencies: value %" PetscInt_FMT " is %g Hz, must be a finite frequency > 0", j + 1, (double)f[j]);
    PetscCheck(j == 0 || f[j] > f[j - 1], comm, PETSC_ERR_ARG_OUTOFRANGE, "-frequencies must increase strictly, but value %" PetscInt_FMT " is %g Hz after %g Hz", j + 1, (double)f[j], (double)f[j - 1]);
  }
  PetscCheck(sigma >= 0 && sigma < 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-frf_noise must lie in [0, 1), got %g", (double)sigma);
  PetscCall(MbsOptionsCheckUnused(comm, PETSC_FALSE));
  PetscCall(MbsModelView(fc->model, PETSC_VIEWER_STDOUT_(comm)));
  PetscCall(MbsModelGetNumChannels(fc->model, &nchannel));
  PetscCall(PetscMalloc2(2 * nf * nchannel, &fc->H, 2 * nf * nchannel, &fc->noise));
  PetscCall(MbsFrequencyResponse(fc->model, load[0] ? load : NULL, nf, f, fc->H));
  if (!load[0]) { /* the first excitation: its name goes into the file, so that -cost frf loads the same element */
    PetscReal  *B, *Cq, *Cv, *Ca;
    PetscInt    n;
    const char *name;

    PetscCall(MbsModelLinearizeFrequencyIO(fc->model, NULL, &name, &n, &B, &Cq, &Cv, &Ca));
    PetscCall(PetscStrncpy(load, name, sizeof(load)));
    PetscCall(PetscFree4(B, Cq, Cv, Ca));
  }
  PetscCall(MbsFrfMeasurement_Private(fc, nf, f, nchannel, load, sigma, seed));
  PetscCall(MbsFrfView_Private(comm, fc, nf, f, nchannel, load));
  if (sigma > 0) PetscCall(PetscPrintf(comm, "With complex Gaussian noise sigma = %g of each channel's max |H| (seed %" PetscInt_FMT ")\n", (double)sigma, seed));
  PetscCall(MbsMeasurementWrite(comm, output, &fc->meas));
  PetscCall(PetscPrintf(comm, "Wrote %s\n", output));
  PetscFunctionReturn(0);
}

PetscErrorCode MbsCommandFrf(MPI_Comm comm)
{
  MbsFrfCommand fc;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(&fc, sizeof(fc)));
  MbsCallCleanup(MbsFrfRun_Private(comm, &fc), MbsFrfCommandDestroy_Private(&fc));
  PetscFunctionReturn(0);
}
