/*
  An input force that replaces a model's own excitation, for any model that declares a force coordinate:

    nodal  F(t) = sum_k F_k phi_k(t), the piecewise-linear interpolant of nodal forces (hat functions phi_k),
           the design variables of an optimal input (oscillator2.md and cart_pendulum.md, section 4);
    sine   F(t) = A sin(2 pi (t - t0)/(tf - t0)), the specs' comparison input, as the continuous function.

  Nodal inputs come from -input_file: an HDF5 file with /input/time [s] and /input/force [N] (what mbsid design
  writes), or a text/CSV file with one force per line (nodes equally spaced over the model's [t0, tf], as the specs
  supply them) or two columns t, F, read as any table of numbers (csv.c: comments, a header, ',', ';', tabs or
  blanks).
*/
#include "models/modelimpl.h"

/* A nodal or sine input drives one force: a model file's forces with input: true, when there are several, are each a
   controller's in the loop */
static PetscErrorCode MbsModelCheckOneInput_Private(MbsModel model, const char what[])
{
  char names[512] = "";

  PetscFunctionBeginUser;
  if (model->ncontrol <= 1) PetscFunctionReturn(0);
  for (PetscInt k = 0; k < model->ncontrol; k++) {
    PetscCall(MbsStrlcat(names, k ? ", " : "", sizeof(names)));
    PetscCall(MbsStrlcat(names, model->control_input[k], sizeof(names)));
  }
  SETERRQ(model->comm, PETSC_ERR_SUP, "Model file '%s' has %" PetscInt_FMT " forces with input: true (%s): %s drives one, so keep input: true on one force; with several, each is driven by its controller in the loop (mbsid perturb, eigen -controller)",
          model->model_file, model->ncontrol, names, what);
}

/*@C
  MbsModelSetNodalInput - Drives the model's force coordinate with the piecewise-linear interpolant of F[k] at the
  strictly increasing times t[k] that cover the model's time span (n >= 2). Not collective.
@*/
PetscErrorCode MbsModelSetNodalInput(MbsModel model, PetscInt n, const PetscReal t[], const PetscReal F[])
{
  PetscFunctionBeginUser;
  PetscCheck(model->force_coordinate >= 0 || model->nodal_input, model->comm, PETSC_ERR_SUP, "Model %s has no force input to drive with a nodal input", model->type);
  PetscCall(MbsModelCheckOneInput_Private(model, "a nodal input (-input_file, design)"));
  PetscCheck(n >= 2, model->comm, PETSC_ERR_ARG_SIZ, "A nodal input needs at least 2 nodes, got %" PetscInt_FMT, n);
  for (PetscInt k = 0; k < n; k++)
    PetscCheck(!PetscIsInfOrNanReal(F[k]) && !PetscIsInfOrNanReal(t[k]), model->comm, PETSC_ERR_ARG_OUTOFRANGE, "Nodal input: node %" PetscInt_FMT " (t = %g s) has force %g: not a finite number", k, (double)t[k], (double)F[k]);
  for (PetscInt k = 1; k < n; k++) PetscCheck(t[k] > t[k - 1], model->comm, PETSC_ERR_ARG_OUTOFRANGE, "Nodal input: node times must increase strictly, but t[%" PetscInt_FMT "] = %g s follows %g s", k, (double)t[k], (double)t[k - 1]);
  PetscCheck(t[0] <= model->t0 * (1 + 1e-12) && t[n - 1] >= model->tf * (1 - 1e-12), model->comm, PETSC_ERR_ARG_OUTOFRANGE, "Nodal input spans [%g, %g] s, which does not cover the simulated interval [%g, %g] s of model %s", (double)t[0], (double)t[n - 1],
             (double)model->t0, (double)model->tf, model->type);
  if (model->input.n != n) {
    PetscCall(PetscFree2(model->input.t, model->input.F));
    PetscCall(PetscMalloc2(n, &model->input.t, n, &model->input.F));
  }
  model->input.type = MBS_INPUT_NODAL;
  model->input.n    = n;
  PetscCall(PetscArraycpy(model->input.t, t, n));
  PetscCall(PetscArraycpy(model->input.F, F, n));
  PetscFunctionReturn(0);
}

/*@C
  MbsModelSetSineInput - Drives the model's force coordinate with A sin(2 pi (t - t0)/(tf - t0)). Not collective.
@*/
PetscErrorCode MbsModelSetSineInput(MbsModel model, PetscReal amplitude)
{
  PetscFunctionBeginUser;
  PetscCheck(model->force_coordinate >= 0 || model->nodal_input, model->comm, PETSC_ERR_SUP, "Model %s has no force input to drive with a sine", model->type);
  PetscCall(MbsModelCheckOneInput_Private(model, "a sine input"));
  model->input.type      = MBS_INPUT_SINE;
  model->input.amplitude = amplitude;
  model->input.t0        = model->t0;
  model->input.tf        = model->tf;
  PetscFunctionReturn(0);
}

/*@C
  MbsModelClearInput - Gives the model its own excitation back. Not collective.
@*/
PetscErrorCode MbsModelClearInput(MbsModel model)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree2(model->input.t, model->input.F));
  PetscCall(PetscMemzero(&model->input, sizeof(model->input)));
  PetscFunctionReturn(0);
}

/* The interval [t_k, t_k+1] of n >= 2 increasing nodes that holds time, and the weights of nodes k and k+1 there (the
   hat functions); outside the nodes the end values hold. Also the force histories of model files (elements/force.c). */
void MbsNodalHat(PetscInt n, const PetscReal t[], PetscReal time, PetscInt *k, PetscReal w[2])
{
  PetscInt  lo = 0, hi = n - 1;
  PetscReal s;

  while (hi - lo > 1) { /* t[lo] <= time < t[hi] as far as the ends allow */
    PetscInt mid = (lo + hi) / 2;

    if (t[mid] <= time) lo = mid;
    else hi = mid;
  }
  s    = (time - t[lo]) / (t[lo + 1] - t[lo]);
  s    = PetscMin(PetscMax(s, 0), 1); /* a stage a rounding error outside the span */
  *k   = lo;
  w[0] = 1 - s;
  w[1] = s;
}

/* The interval [t_k, t_k+1] of the nodal input that holds t, and the weights of F_k and F_k+1 there (the hat functions) */
PetscErrorCode MbsModelInputHat(MbsModel model, PetscReal t, PetscInt *k, PetscReal w[])
{
  PetscFunctionBeginUser;
  MbsNodalHat(model->input.n, model->input.t, t, k, w);
  PetscFunctionReturn(0);
}

/*
  MbsInputSine - The sine input A sin(w (t - t0)), w = 2 pi / (tf - t0), or its first or second time derivative (order 0,
  1, 2) at t: the model's input force, and the law of a model file's force with input: true. Not collective.
*/
PetscReal MbsInputSine(const MbsInput *input, PetscReal t, PetscInt order)
{
  PetscReal omega = 2 * PETSC_PI / (input->tf - input->t0), x = omega * (t - input->t0), A = input->amplitude;

  return order == 0 ? A * PetscSinReal(x) : order == 1 ? A * omega * PetscCosReal(x) : -A * omega * omega * PetscSinReal(x);
}

PetscErrorCode MbsModelInputForce(MbsModel model, PetscReal t, PetscReal *force)
{
  const MbsInput *input = &model->input;

  PetscFunctionBeginUser;
  if (input->type == MBS_INPUT_SINE) *force = MbsInputSine(input, t, 0);
  else {
    PetscInt  k;
    PetscReal w[2];

    PetscCall(MbsModelInputHat(model, t, &k, w));
    *force = w[0] * input->F[k] + w[1] * input->F[k + 1];
  }
  PetscFunctionReturn(0);
}

/* B with dF/dF_in = -B (ops.input_direction): the input force's generalised direction in the residual at (t, U) */
PetscErrorCode MbsModelInputDirection(MbsModel model, PetscReal t, const PetscReal U[], PetscReal B[])
{
  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(B, model->n));
  if (model->ops.input_direction) PetscCall(model->ops.input_direction(model, t, U, B));
  else B[model->nq + model->force_coordinate] = 1;
  PetscFunctionReturn(0);
}

/* A text input (csv.c): one column of forces, or columns of times and forces */
static PetscErrorCode MbsInputReadText_Private(const char path[], PetscReal t0, PetscReal tf, PetscInt *n, PetscReal **t, PetscReal **F, PetscInt **line)
{
  MbsCsv   csv;
  PetscInt ncol, header_line;

  PetscFunctionBeginUser;
  PetscCall(MbsCsvRead(path, PETSC_FALSE, &csv));
  ncol        = csv.ncol;
  header_line = csv.header_line;
  if (ncol > 2 || header_line) PetscCall(MbsCsvReset(&csv));
  /* the specs' input files have no header: a first line that is not numbers is a fault, not names */
  PetscCheck(!header_line, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "Input file '%s', line %" PetscInt_FMT ": not a line of numbers (expected a force [N], or a time [s] and a force)", path, header_line);
  PetscCheck(ncol <= 2, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "Input file '%s': more than two columns (expected a force [N], or a time [s] and a force)", path);
  *n = csv.nrow;
  PetscCall(PetscMalloc1(*n, t));
  PetscCall(PetscMalloc1(*n, F));
  PetscCall(PetscMalloc1(*n, line));
  for (PetscInt k = 0; k < *n; k++) {
    (*t)[k]    = csv.ncol == 2 ? csv.value[2 * k] : k == *n - 1 ? tf : t0 + k * (tf - t0) / (*n - 1);
    (*F)[k]    = csv.value[csv.ncol * k + csv.ncol - 1];
    (*line)[k] = csv.line[k];
  }
  PetscCall(MbsCsvReset(&csv));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsInputReadHDF5_Private(const char path[], PetscInt *n, PetscReal **t, PetscReal **F)
{
  hid_t    file;
  PetscInt nt, nF;

  PetscFunctionBeginUser;
  file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  PetscCheck(file >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open input file '%s' as HDF5", path);
  PetscCall(MbsH5ReadReals(file, path, "/input/time", 1, &nt, t, "s", NULL));
  PetscCall(MbsH5ReadReals(file, path, "/input/force", 1, &nF, F, "N", NULL));
  MbsCallHDF5(H5Fclose(file), path, "/");
  if (nt != nF) {
    PetscCall(PetscFree(*t));
    PetscCall(PetscFree(*F));
  }
  PetscCheck(nt == nF, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "Input file '%s': /input/time has %" PetscInt_FMT " values but /input/force %" PetscInt_FMT, path, nt, nF);
  *n = nt;
  PetscFunctionReturn(0);
}

/* At least two nodes, times increasing strictly and covering [t0, tf] */
static PetscErrorCode MbsInputCheck_Private(const char path[], PetscReal t0, PetscReal tf, PetscInt n, const PetscReal t[], const PetscInt line[])
{
  PetscFunctionBeginUser;
  PetscCheck(n >= 2, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "Input file '%s' has %" PetscInt_FMT " node(s); a nodal input needs at least 2", path, n);
  for (PetscInt k = 1; k < n; k++)
    PetscCheck(t[k] > t[k - 1], PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "Input file '%s': node times must increase strictly, but node %" PetscInt_FMT " (%s %" PetscInt_FMT ") has t = %g s after %g s", path, k, line ? "line" : "index", line ? line[k] : k, (double)t[k], (double)t[k - 1]);
  PetscCheck(t[0] <= t0 + 1e-12 * PetscAbsReal(t0) && t[n - 1] >= tf - 1e-12 * PetscAbsReal(tf), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "Input file '%s' spans [%g, %g] s, which does not cover the simulated interval [%g, %g] s", path, (double)t[0], (double)t[n - 1], (double)t0, (double)tf);
  PetscFunctionReturn(0);
}

/*@C
  MbsInputRead - Reads a nodal input (see above); a one-column text file spreads its nodes equally over [t0, tf].
  The caller frees t and F with PetscFree2(); a refused file leaves nothing allocated. Not collective.
@*/
PetscErrorCode MbsInputRead(const char path[], PetscReal t0, PetscReal tf, PetscInt *n, PetscReal **t, PetscReal **F)
{
  PetscReal     *t_read = NULL, *F_read = NULL;
  PetscInt      *line = NULL; /* the text file's line of each node */
  PetscErrorCode checked;

  PetscFunctionBeginUser;
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  if (H5Fis_hdf5(path) > 0) PetscCall(MbsInputReadHDF5_Private(path, n, &t_read, &F_read));
  else PetscCall(MbsInputReadText_Private(path, t0, tf, n, &t_read, &F_read, &line));
  checked = MbsInputCheck_Private(path, t0, tf, *n, t_read, line);
  if (!checked) {
    PetscCall(PetscMalloc2(*n, t, *n, F));
    PetscCall(PetscArraycpy(*t, t_read, *n));
    PetscCall(PetscArraycpy(*F, F_read, *n));
  }
  PetscCall(PetscFree(t_read));
  PetscCall(PetscFree(F_read));
  PetscCall(PetscFree(line));
  PetscCall(checked);
  PetscFunctionReturn(0);
}

/* -input_file, read with the model's own options */
PetscErrorCode MbsModelInputSetFromOptions(MbsModel model, PetscOptionItems *PetscOptionsObject)
{
  char      path[PETSC_MAX_PATH_LEN] = "";
  PetscBool set;

  PetscFunctionBeginUser;
  PetscCall(MbsOptionsInputFile(PetscOptionsObject, "-input_file", "Nodal input force replacing the model's excitation: HDF5 with /input/time, /input/force, or text with F or t,F per line (doc/design.md)", "MbsModelSetNodalInput", path, sizeof(path), &set));
  if (!set) PetscFunctionReturn(0);
  PetscCheck(model->force_coordinate >= 0 || model->nodal_input, model->comm, PETSC_ERR_ARG_INCOMP, "-input_file %s: model %s has no force input%s", path, model->type, model->model_file[0] ? " (a model file gives it to the force element with input: true)" : "");
  {
    PetscInt   n;
    PetscReal *t, *F;

    PetscCall(MbsInputRead(path, model->t0, model->tf, &n, &t, &F));
    MbsCallCleanup(MbsModelSetNodalInput(model, n, t, F), PetscFree2(t, F));
  }
  PetscFunctionReturn(0);
}

/*@C
  MbsInputWrite - Writes a nodal input as /input/time and /input/force below the writer's base group, readable by
  -input_file. Not collective.
@*/
PetscErrorCode MbsInputWrite(MbsH5Writer *writer, const char group[], PetscInt n, const PetscReal t[], const PetscReal F[])
{
  char path[PETSC_MAX_PATH_LEN];

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/time", group));
  PetscCall(MbsH5WriteReals(writer, path, 1, &n, t, "s"));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/force", group));
  PetscCall(MbsH5WriteReals(writer, path, 1, &n, F, "N"));
  PetscFunctionReturn(0);
}

/*@C
  MbsInputWriteText - Writes a nodal input as two columns t, F (CSV, readable by -input_file), through a temporary
  file renamed into place. Not collective.
@*/
PetscErrorCode MbsInputWriteText(const char path[], PetscInt n, const PetscReal t[], const PetscReal F[])
{
  const size_t line     = 2 * 25 + 2; /* two %.17g numbers (at most 24 characters each), a comma and a newline */
  const char   header[] = "# t [s], F [N]\n";
  size_t       size = sizeof(header) - 1, capacity = size + (size_t)n * line + 1;
  char        *text;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(capacity, &text));
  PetscCall(PetscStrncpy(text, header, capacity));
  for (PetscInt k = 0; k < n; k++) size += (size_t)snprintf(text + size, capacity - size, "%.17g,%.17g\n", (double)t[k], (double)F[k]);
  MbsCallUndo(MbsFileWrite(path, "input file", text, size), PetscFree(text));
  PetscCall(PetscFree(text));
  PetscFunctionReturn(0);
}
