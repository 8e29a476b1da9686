/*
  mbsid simulate: forward simulation of one model, its output signal, spectrum and (optionally)
  engine orders, written to a result file; optionally a virtual measurement (the same data with
  seeded Gaussian noise on the signal, spectrum and orders computed from the noisy signal), and a
  comparison with a measured spectrum.
*/
#include "commands/commandimpl.h"

/* Fills the measurement view of a simulated signal and its analysis (arrays owned by the caller). */
static PetscErrorCode MbsSimulationToMeasurement_Private(MbsModel model, MbsFourier fourier, const MbsSignal *signal, MbsMeasurement *meas)
{
  const PetscReal *A, *B, *omega, *speed, *order;
  PetscInt         ncoef, offset, nspeed, norder;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(meas, sizeof(*meas)));
  PetscCall(PetscStrncpy(meas->model, model->type, sizeof(meas->model)));
  PetscCall(PetscStrncpy(meas->output, model->output_name, sizeof(meas->output)));
  PetscCall(PetscStrncpy(meas->units, model->output_unit, sizeof(meas->units)));
  PetscCall(PetscSNPrintf(meas->created_by, sizeof(meas->created_by), "mbsid %s simulate", MBSID_VERSION));
  PetscCall(MbsFourierGetNumCoefficients(fourier, &ncoef));
  PetscCall(MbsFourierGetCoefficients(fourier, &A, &B));
  PetscCall(MbsFourierGetFrequencies(fourier, &omega));
  PetscCall(MbsFourierGetOrderLayout(fourier, &offset, &nspeed, &speed, &norder, &order));
  meas->nfreq = nspeed ? offset : ncoef;
  PetscCall(PetscMalloc4(meas->nfreq, &meas->frequency, meas->nfreq, &meas->amplitude, meas->nfreq, &meas->a, meas->nfreq, &meas->b));
  for (PetscInt j = 0; j < meas->nfreq; j++) {
    meas->frequency[j] = omega[j] / (2 * PETSC_PI);
    meas->amplitude[j] = PetscSqrtReal(A[j] * A[j] + B[j] * B[j]);
    meas->a[j]         = A[j];
    meas->b[j]         = B[j];
  }
  meas->nspeed = nspeed;
  meas->norder = norder;
  {
    const char *domain;

    PetscCall(MbsFourierGetOrderDomain(fourier, &domain));
    PetscCall(PetscStrncpy(meas->order_domain, domain, sizeof(meas->order_domain)));
  }
  meas->speed = (PetscReal *)speed;
  meas->order = (PetscReal *)order;
  PetscCall(PetscMalloc3(nspeed * norder, &meas->order_amplitude, nspeed * norder, &meas->order_a, nspeed * norder, &meas->order_b));
  for (PetscInt j = 0; j < nspeed * norder; j++) {
    meas->order_amplitude[j] = PetscSqrtReal(A[offset + j] * A[offset + j] + B[offset + j] * B[offset + j]);
    meas->order_a[j]         = A[offset + j];
    meas->order_b[j]         = B[offset + j];
  }
  meas->nsignal = signal->n;
  meas->t       = signal->t;
  meas->y       = signal->y;
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsSimulationMeasurementFree_Private(MbsMeasurement *meas)
{
  PetscFunctionBeginUser;
  for (PetscInt c = 0; c < meas->nchannel; c++) PetscCall(MbsSimulationMeasurementFree_Private(&meas->channel[c]));
  PetscCall(PetscFree(meas->channel));
  PetscCall(PetscFree4(meas->frequency, meas->amplitude, meas->a, meas->b));
  PetscCall(PetscFree3(meas->order_amplitude, meas->order_a, meas->order_b));
  meas->nchannel = 0;
  PetscFunctionReturn(0);
}

/* The measurement view of a simulated signal: of its output y, or, for a model of several output channels, one named
   channel per output channel (each with its unit, its spectrum and orders computed from that channel) */
static PetscErrorCode MbsSimulationToChannels_Private(MbsModel model, MbsFourier fourier, const MbsSignal *signal, MbsMeasurement *meas)
{
  PetscInt nchannel;

  PetscFunctionBeginUser;
  PetscCall(MbsModelGetNumChannels(model, &nchannel));
  if (nchannel == 1) {
    PetscCall(MbsFourierComputeSignal(fourier, signal));
    PetscCall(MbsSimulationToMeasurement_Private(model, fourier, signal, meas));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscMemzero(meas, sizeof(*meas)));
  PetscCall(PetscStrncpy(meas->model, model->type, sizeof(meas->model)));
  PetscCall(PetscSNPrintf(meas->created_by, sizeof(meas->created_by), "mbsid %s simulate", MBSID_VERSION));
  PetscCall(PetscCalloc1(nchannel, &meas->channel));
  for (PetscInt c = 0; c < nchannel; c++) {
    MbsMeasurement *channel = &meas->channel[c];
    MbsSignal       view;
    const char     *name, *unit;

    PetscCall(MbsSignalGetChannel(signal, c, &view));
    PetscCall(MbsFourierCheckSignal(fourier, &view, "simulate (-band_hz, -orders)"));
    PetscCall(MbsFourierComputeSignal(fourier, &view));
    PetscCall(MbsSimulationToMeasurement_Private(model, fourier, &view, channel));
    meas->nchannel++;
    PetscCall(MbsModelGetChannelInfo(model, c, &name, &unit));
    PetscCall(PetscStrncpy(channel->output, name, sizeof(channel->output)));
    PetscCall(PetscStrncpy(channel->units, unit, sizeof(channel->units)));
  }
  PetscFunctionReturn(0);
}

/* Relative misfit of the amplitude spectra, sqrt(sum (|X| - |X_meas|)^2 / sum |X_meas|^2), on the common frequencies. */
static PetscErrorCode MbsCompareSpectra_Private(MPI_Comm comm, const char path[], const MbsMeasurement *sim, const MbsMeasurement *meas)
{
  PetscReal num = 0, den = 0;

  PetscFunctionBeginUser;
  PetscCheck(meas->nfreq > 0, comm, PETSC_ERR_ARG_WRONG, "Measurement file '%s' has no /spectrum to compare with", path);
  PetscCheck(meas->nfreq == sim->nfreq, comm, PETSC_ERR_ARG_SIZ, "Measurement file '%s' has %" PetscInt_FMT " frequencies, the simulated spectrum %" PetscInt_FMT ": use the same -band_hz and interval", path, meas->nfreq, sim->nfreq);
  for (PetscInt j = 0; j < meas->nfreq; j++) {
    PetscCheck(PetscAbsReal(meas->frequency[j] - sim->frequency[j]) <= 1e-9 * PetscMax(1, sim->frequency[j]), comm, PETSC_ERR_ARG_WRONG, "Measurement file '%s': /spectrum/frequency[%" PetscInt_FMT "] = %g Hz, simulated %g Hz", path, j, (double)meas->frequency[j],
               (double)sim->frequency[j]);
    num += PetscSqr(sim->amplitude[j] - meas->amplitude[j]);
    den += PetscSqr(meas->amplitude[j]);
  }
  PetscCheck(!PetscIsInfOrNanReal(num) && !PetscIsInfOrNanReal(den), comm, PETSC_ERR_FP, "Measurement file '%s': the spectrum misfit is not finite (sum of squares %g against %g): the measured amplitudes overflow it; check their values and units", path, (double)num, (double)den);
  PetscCall(PetscPrintf(comm, "Spectrum misfit against %s: %.6e (relative, %" PetscInt_FMT " frequencies)\n", path, (double)(den > 0 ? PetscSqrtReal(num / den) : PetscSqrtReal(num)), meas->nfreq));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsWriteSimulation_Private(MPI_Comm comm, const char path[], MbsModel model, const MbsMeasurement *meas)
{
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    MbsH5Writer      writer;
    const char     **names, **units;
    const PetscReal *p;
    PetscInt         np = model->np;

    PetscCall(PetscMalloc2(model->np, &names, model->np, &units));
    for (PetscInt i = 0; i < model->np; i++) {
      names[i] = model->param_info[i].name;
      units[i] = model->param_info[i].unit;
    }
    PetscCall(MbsH5WriterOpen(path, &writer));
    PetscCall(MbsMeasurementWriteGroups_Private(&writer, meas));
    PetscCall(MbsH5WriteStrings(&writer, "/parameters/name", model->np, names));
    PetscCall(MbsH5WriteStrings(&writer, "/parameters/unit", model->np, units));
    PetscCall(MbsModelGetParametersRead(model, &p));
    PetscCall(MbsH5WriteReals(&writer, "/parameters/value", 1, &np, p, "see /parameters/unit"));
    PetscCall(MbsH5WriteProvenance(&writer, comm));
    PetscCall(MbsH5WriterClose(&writer));
    PetscCall(PetscFree2(names, units));
  }
  PetscCallMPI(MPI_Barrier(comm));
  PetscFunctionReturn(0);
}

typedef struct {
  PetscInt       nexp;
  MbsExperiment *exps;
  MbsFourier     fourier;
  MbsSignal      signal;
  MbsMeasurement table;
  PetscInt       nchannel; /* output channels of the model: the table's channels, or the table itself for one */
  PetscReal     *local;    /* per channel this rank's points' amplitudes, then coefficients a, then b: the three arrays */
} MbsSweep;

static PetscErrorCode MbsSweepDestroy_Private(MbsSweep *sw)
{
  PetscFunctionBeginUser;
  for (PetscInt e = 0; e < sw->nexp; e++) {
    PetscCall(MbsModelDestroy(&sw->exps[e].model));
    PetscCall(MbsExperimentOptionsDestroy(&sw->exps[e]));
  }
  PetscCall(PetscFree(sw->exps));
  PetscCall(MbsFourierDestroy(&sw->fourier));
  PetscCall(MbsSignalDestroy(&sw->signal));
  PetscCall(PetscFree(sw->local));
  PetscCall(MbsMeasurementReset(&sw->table));
  PetscFunctionReturn(0);
}

/* The models of the sweep points, within each point's options; their analysis options are read too, so that every
   option is checked before the first solve */
static PetscErrorCode MbsSweepModelCreate_Private(MPI_Comm comm, MbsSweep *sw, MbsExperiment *exp)
{
  PetscFunctionBeginUser;
  PetscCall(MbsModelCreate(comm, &exp->model));
  PetscCall(MbsModelSetFromOptions(exp->model));
  exp->steps = (exp->model->tf - exp->model->t0) / exp->model->dt;
  PetscCall(MbsFourierCreate(&sw->fourier));
  PetscCall(MbsFourierSetFromOptions(sw->fourier, exp->model));
  PetscCall(MbsFourierDestroy(&sw->fourier));
  PetscFunctionReturn(0);
}

/* The order amplitudes of one sweep point, within its options, into the gathered table */
static PetscErrorCode MbsSweepPoint_Private(MPI_Comm comm, MbsSweep *sw, PetscInt e)
{
  MbsExperiment   *exp   = &sw->exps[e];
  MbsMeasurement  *table = &sw->table;
  const PetscReal *A, *B, *speed, *orders;
  PetscInt         offset, nspeed, norder;
  PetscMPIInt      rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(MbsFourierCreate(&sw->fourier));
  PetscCall(MbsFourierSetFromOptions(sw->fourier, exp->model));
  PetscCall(MbsFourierGetOrderLayout(sw->fourier, &offset, &nspeed, &speed, &norder, &orders));
  PetscCheck(nspeed == 1, comm, PETSC_ERR_ARG_WRONG, "A sweep needs -orders to analyse at each speed");
  if (!table->order) {
    table->norder = norder;
    PetscCall(PetscMalloc1(norder, &table->order));
    PetscCall(PetscArraycpy(table->order, orders, norder));
    PetscCall(MbsModelGetNumChannels(exp->model, &sw->nchannel));
    PetscCall(PetscCalloc1(3 * sw->nchannel * sw->nexp * norder, &sw->local));
  }
  table->speed[e] = speed[0];
  if (exp->rank == rank) {
    PetscCall(MbsSimulate(exp->model, NULL, NULL, NULL, &sw->signal));
    for (PetscInt c = 0; c < sw->nchannel; c++) {
      MbsSignal  view;
      PetscReal *local = sw->local + 3 * c * sw->nexp * norder;

      PetscCall(MbsSignalGetChannel(&sw->signal, c, &view));
      PetscCall(MbsFourierCheckSignal(sw->fourier, &view, "simulate -sweep_rpm"));
      PetscCall(MbsFourierComputeSignal(sw->fourier, &view));
      PetscCall(MbsFourierGetCoefficients(sw->fourier, &A, &B));
      for (PetscInt o = 0; o < norder; o++) {
        PetscInt j = e * norder + o, size = sw->nexp * norder;

        local[j]            = PetscSqrtReal(PetscSqr(A[offset + o]) + PetscSqr(B[offset + o]));
        local[size + j]     = A[offset + o];
        local[2 * size + j] = B[offset + o];
      }
    }
    PetscCall(MbsSignalDestroy(&sw->signal));
  }
  PetscCall(MbsFourierDestroy(&sw->fourier));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsSimulateSweepRun_Private(MPI_Comm comm, const char output[], const char save[], MbsSweep *sw)
{
  MbsMeasurement *table = &sw->table;
  PetscMPIInt     size;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(MbsExperimentsCreate(comm, &sw->nexp, &sw->exps));
  for (PetscInt e = 0; e < sw->nexp; e++) { /* the cost of each point, for dealing them out */
    PetscCall(MbsExperimentOptionsPush(&sw->exps[e]));
    MbsCallCleanup(MbsSweepModelCreate_Private(comm, sw, &sw->exps[e]), MbsExperimentOptionsPop(&sw->exps[e]));
  }
  PetscCall(MbsOptionsCheckUnused(comm, PETSC_FALSE));
  PetscCall(MbsExperimentsDistribute(sw->nexp, sw->exps, size));
  table->nspeed = sw->nexp;
  PetscCall(PetscMalloc1(sw->nexp, &table->speed));
  for (PetscInt e = 0; e < sw->nexp; e++) {
    PetscCall(MbsExperimentOptionsPush(&sw->exps[e]));
    MbsCallCleanup(MbsSweepPoint_Private(comm, sw, e), MbsExperimentOptionsPop(&sw->exps[e]));
  }
  if (sw->nchannel > 1) PetscCall(PetscCalloc1(sw->nchannel, &table->channel));
  { /* one contribution per entry */
    PetscInt   size = sw->nexp * table->norder;
    PetscReal *all;

    PetscCall(PetscMalloc1(3 * sw->nchannel * size, &all));
    PetscCall(MPIU_Allreduce(sw->local, all, 3 * sw->nchannel * size, MPIU_REAL, MPIU_SUM, comm));
    for (PetscInt c = 0; c < sw->nchannel; c++) { /* a model of several channels: one named channel each (measurements.md) */
      MbsMeasurement *channel = sw->nchannel > 1 ? &table->channel[c] : table;
      const char     *name, *unit;

      if (sw->nchannel > 1) {
        table->nchannel++;
        PetscCall(PetscMalloc1(sw->nexp, &channel->speed)); /* each freed by MbsMeasurementReset */
        PetscCall(PetscMalloc1(table->norder, &channel->order));
        PetscCall(PetscArraycpy(channel->speed, table->speed, sw->nexp));
        PetscCall(PetscArraycpy(channel->order, table->order, table->norder));
        channel->nspeed = sw->nexp;
        channel->norder = table->norder;
        PetscCall(PetscStrncpy(channel->model, sw->exps[0].model->type, sizeof(channel->model)));
      }
      PetscCall(MbsModelGetChannelInfo(sw->exps[0].model, c, &name, &unit));
      PetscCall(PetscStrncpy(channel->output, sw->nchannel > 1 ? name : sw->exps[0].model->output_name, sizeof(channel->output)));
      PetscCall(PetscStrncpy(channel->units, sw->nchannel > 1 ? unit : sw->exps[0].model->output_unit, sizeof(channel->units)));
      PetscCall(PetscMalloc1(size, &channel->order_amplitude));
      PetscCall(PetscMalloc1(size, &channel->order_a));
      PetscCall(PetscMalloc1(size, &channel->order_b));
      PetscCall(PetscArraycpy(channel->order_amplitude, all + 3 * c * size, size));
      PetscCall(PetscArraycpy(channel->order_a, all + (3 * c + 1) * size, size));
      PetscCall(PetscArraycpy(channel->order_b, all + (3 * c + 2) * size, size));
    }
    PetscCall(PetscFree(all));
  }
  PetscCall(PetscPrintf(comm, "Sweep: %" PetscInt_FMT " speeds %g to %g rpm over %d ranks, %" PetscInt_FMT " orders, %" PetscInt_FMT " channel%s\n", sw->nexp, (double)table->speed[0], (double)table->speed[sw->nexp - 1], size, table->norder, sw->nchannel, sw->nchannel > 1 ? "s" : ""));
  PetscCall(PetscStrncpy(table->model, sw->exps[0].model->type, sizeof(table->model)));
  PetscCall(PetscSNPrintf(table->created_by, sizeof(table->created_by), "mbsid %s simulate (stationary sweep)", MBSID_VERSION));
  PetscCall(MbsMeasurementWrite(comm, output, table));
  PetscCall(PetscPrintf(comm, "Wrote %s\n", output));
  if (save[0]) {
    PetscCall(MbsMeasurementWrite(comm, save, table));
    PetscCall(PetscPrintf(comm, "Wrote virtual measurement %s\n", save));
  }
  PetscFunctionReturn(0);
}

/*
  A stationary speed sweep (-sweep_rpm lo:hi:step): every rank simulates the sweep points dealt to it, the
  amplitudes and coefficients a, b of -orders on each point's last -window_cycles revolutions (t = 0 is crank angle
  0, so a, b refer to the crank angle) are gathered into one order table
  (speed x order), written as the result and, with -save_measurement, as a measurement (/orders only); a model of
  several output channels gets one table per channel, /channels/NAME/orders, from one simulation per point.
*/
static PetscErrorCode MbsSimulateSweep_Private(MPI_Comm comm, const char output[], const char save[])
{
  MbsSweep sw;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(&sw, sizeof(sw)));
  MbsCallCleanup(MbsSimulateSweepRun_Private(comm, output, save, &sw), MbsSweepDestroy_Private(&sw));
  PetscFunctionReturn(0);
}

typedef struct {
  MbsModel       model;
  MbsFourier     fourier;
  MbsSignal      signal;
  MbsMeasurement result, meas, virtual_meas; /* result and virtual_meas share the signal's arrays */
  PetscReal     *channel_sigma;              /* the virtual measurement's noise per output channel */
} MbsSimulation;

static PetscErrorCode MbsSimulationDestroy_Private(MbsSimulation *sim)
{
  PetscFunctionBeginUser;
  PetscCall(MbsSimulationMeasurementFree_Private(&sim->virtual_meas));
  PetscCall(MbsSimulationMeasurementFree_Private(&sim->result));
  PetscCall(MbsMeasurementReset(&sim->meas));
  PetscCall(MbsSignalDestroy(&sim->signal));
  PetscCall(PetscFree(sim->channel_sigma));
  PetscCall(MbsFourierDestroy(&sim->fourier));
  PetscCall(MbsModelDestroy(&sim->model));
  PetscFunctionReturn(0);
}

/* The options of a sweep too, for -help */
static PetscErrorCode MbsSimulateHelpSweep_Private(MPI_Comm comm)
{
  MbsSweep sw;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(&sw, sizeof(sw)));
  MbsCallCleanup(MbsExperimentsCreate(comm, &sw.nexp, &sw.exps), MbsSweepDestroy_Private(&sw));
  PetscFunctionReturn(0);
}

/* The noise of each output channel of the virtual measurement: sigma, or the channel's of -channel_noise NAME:sigma,...
   (a one-output model's one channel is its output); checked before the solve */
static PetscErrorCode MbsSimulationChannelNoise_Private(MbsModel model, PetscReal sigma, const char channel_noise[], PetscReal **channel_sigma)
{
  PetscInt     nchannel;
  const char **names;

  PetscFunctionBeginUser;
  PetscCall(MbsModelGetNumChannels(model, &nchannel));
  PetscCall(PetscMalloc1(nchannel, channel_sigma));
  PetscCall(PetscMalloc1(nchannel, &names));
  for (PetscInt c = 0; c < nchannel; c++) {
    PetscCall(MbsModelGetChannelInfo(model, c, &names[c], NULL));
    (*channel_sigma)[c] = sigma;
  }
  MbsCallUndo(MbsNamedValues(model->comm, "-channel_noise", channel_noise, "channel", "the model's outputs", nchannel, names, *channel_sigma), PetscFree(names));
  PetscCall(PetscFree(names));
  PetscFunctionReturn(0);
}

/*
  Every rank simulates the one experiment (same data, same result), so that an error is seen by all ranks
  alike; rank 0 writes.
*/
static PetscErrorCode MbsSimulateRun_Private(MPI_Comm comm, MbsSimulation *sim)
{
  MbsModel              model;
  MbsFourier            fourier;
  MbsSignal            *signal                     = &sim->signal;
  MbsMeasurement       *result                     = &sim->result;
  char                  output[PETSC_MAX_PATH_LEN] = "simulate.h5", save[PETSC_MAX_PATH_LEN] = "", compare[PETSC_MAX_PATH_LEN] = "", channel_noise[1024] = "";
  PetscReal             sigma = 0, amplitude_rel = 0, peak = 0, peak_hz = 0;
  PetscInt              nchannel;
  const MbsMeasurement *channel;
  PetscInt              seed = 12345;
  PetscBool             help, sweep;
  PetscLogStage         stage;

  PetscFunctionBeginUser;
  MbsOptionsBegin(comm, NULL, "mbsid simulate: forward simulation, spectrum and orders", "simulate");
  PetscCall(MbsOptionsOutputFile(PetscOptionsObject, "-o", "Result file (HDF5)", output, sizeof(output)));
  PetscCall(MbsOptionsOutputFile(PetscOptionsObject, "-save_measurement", "Also write a virtual measurement to this file (HDF5, measurement schema)", save, sizeof(save)));
  PetscCall(PetscOptionsReal("-noise_sigma", "Standard deviation of additive Gaussian noise on the virtual measurement's signal, every channel [its unit]", "MbsSignalAddNoise", sigma, &sigma, NULL));
  PetscCall(PetscOptionsString("-channel_noise", "Noise of the channels named, as NAME:sigma,... [each channel's unit]; the others: -noise_sigma", "MbsSignalAddNoise", channel_noise, channel_noise, sizeof(channel_noise), NULL));
  PetscCall(PetscOptionsReal("-noise_amplitude_rel", "Relative Gaussian noise on the virtual measurement's order amplitudes (0.02: 2 %)", "MbsMeasurementScaleNoise", amplitude_rel, &amplitude_rel, NULL));
  PetscCall(MbsOptionsIntRange(PetscOptionsObject, "-noise_seed", "Seed of the noise sequence", &seed, PETSC_MIN_INT, PETSC_MAX_INT, NULL));
  PetscCall(MbsOptionsInputFile(PetscOptionsObject, "-measurement", "Measurement file whose spectrum the simulation is compared with", "", compare, sizeof(compare), NULL));
  MbsOptionsEnd();
  PetscCheck(sigma >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-noise_sigma must be >= 0, got %g", (double)sigma);
  PetscCheck(amplitude_rel >= 0 && amplitude_rel < 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-noise_amplitude_rel must lie in [0, 1), got %g", (double)amplitude_rel);
  PetscCall(PetscOptionsHasName(NULL, NULL, "-sweep_rpm", &sweep));
  PetscCall(PetscOptionsHasHelp(NULL, &help));
  if (sweep && !help) {
    PetscCheck(sigma == 0 && amplitude_rel == 0 && !compare[0] && !channel_noise[0], comm, PETSC_ERR_SUP, "A sweep (-sweep_rpm) writes its noiseless order table and no signal: -noise_sigma, -channel_noise, -noise_amplitude_rel and -measurement do not apply");
    PetscCall(MbsSimulateSweep_Private(comm, output, save));
    PetscFunctionReturn(0);
  }

  PetscCall(MbsModelCreate(comm, &sim->model));
  model = sim->model;
  PetscCall(MbsModelSetFromOptions(model));
  PetscCall(MbsFourierCreate(&sim->fourier));
  fourier = sim->fourier;
  PetscCall(MbsFourierSetFromOptions(fourier, model));
  PetscCall(PetscOptionsHasHelp(NULL, &help));
  if (help) {
    PetscReal timeout;

    PetscCall(MbsSimulateHelpSweep_Private(comm));
    PetscCall(MbsMeasurementOptions(comm, &timeout));
    PetscCall(MbsSimulateHelp(model));
    PetscFunctionReturn(0);
  }
  PetscCall(MbsOptionsCheckUnused(comm, PETSC_FALSE));
  PetscCall(MbsSimulationChannelNoise_Private(model, sigma, channel_noise, &sim->channel_sigma));
  PetscCall(MbsModelView(model, PETSC_VIEWER_STDOUT_(comm)));
  if (compare[0]) PetscCall(MbsMeasurementRead(comm, compare, &sim->meas)); /* a bad file fails before the work */

  PetscCall(PetscLogStageRegister("Forward", &stage));
  PetscCall(PetscLogStagePush(stage));
  PetscCall(MbsSimulate(model, NULL, NULL, NULL, signal));
  PetscCall(PetscLogStagePop());
  PetscCall(PetscPrintf(comm, "Simulated t = [%g, %g] s: %" PetscInt_FMT " steps, %" PetscInt_FMT " rejected\n", (double)model->t0, (double)model->tf, signal->steps, signal->rejects));

  PetscCall(MbsFourierCheckSignal(fourier, signal, "simulate (-band_hz, -orders)"));
  PetscCall(MbsSimulationToChannels_Private(model, fourier, signal, result));
  PetscCall(MbsMeasurementGetChannels(result, &nchannel, &channel));
  for (PetscInt c = 0; c < nchannel; c++) {
    const MbsMeasurement *ch = &channel[c];

    peak = 0;
    for (PetscInt j = 0; j < ch->nfreq; j++) {
      if (ch->amplitude[j] > peak) {
        peak    = ch->amplitude[j];
        peak_hz = ch->frequency[j];
      }
    }
    if (ch->nfreq)
      PetscCall(
        PetscPrintf(comm, "Spectrum%s%s: %" PetscInt_FMT " harmonics in [%g, %g] Hz, largest amplitude %.6e %s at %g Hz\n", result->nchannel ? " of channel " : "", result->nchannel ? ch->output : "", ch->nfreq, (double)ch->frequency[0], (double)ch->frequency[ch->nfreq - 1], (double)peak, ch->units, (double)peak_hz));
  }
  PetscCheck(!compare[0] || !result->nchannel, comm, PETSC_ERR_SUP, "-measurement %s: simulate compares the spectrum of a one-output model; model %s has %" PetscInt_FMT " output channels", compare, model->type, nchannel);
  if (compare[0]) PetscCall(MbsCompareSpectra_Private(comm, compare, result, &sim->meas)); /* before writing: a comparison that fails leaves no result file behind */
  PetscCall(MbsWriteSimulation_Private(comm, output, model, result));
  PetscCall(PetscPrintf(comm, "Wrote %s\n", output));

  if (save[0]) {
    MbsMeasurement *virtual_meas = &sim->virtual_meas;

    /* a one-output model's file holds its output y, whose noise is that of its one channel */
    PetscCall(MbsSignalAddNoise(signal, result->nchannel ? sigma : sim->channel_sigma[0], sim->channel_sigma, seed));
    PetscCall(MbsSimulationToChannels_Private(model, fourier, signal, virtual_meas));
    PetscCall(MbsMeasurementScaleNoise(virtual_meas, amplitude_rel, seed));
    for (PetscInt c = 0; c < virtual_meas->nchannel; c++) PetscCall(MbsMeasurementScaleNoise(&virtual_meas->channel[c], amplitude_rel, seed + 1 + c));
    PetscCall(PetscSNPrintf(virtual_meas->created_by, sizeof(virtual_meas->created_by), "mbsid %s simulate (virtual measurement, noise sigma %g%s, order amplitudes x (1 + %g n), seed %" PetscInt_FMT ")", MBSID_VERSION, (double)sigma, channel_noise[0] ? " or -channel_noise" : "", (double)amplitude_rel, seed));
    PetscCall(MbsMeasurementWrite(comm, save, virtual_meas));
    PetscCall(PetscPrintf(comm, "Wrote virtual measurement %s\n", save));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode MbsCommandSimulate(MPI_Comm comm)
{
  MbsSimulation sim;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(&sim, sizeof(sim)));
  MbsCallCleanup(MbsSimulateRun_Private(comm, &sim), MbsSimulationDestroy_Private(&sim));
  PetscFunctionReturn(0);
}
