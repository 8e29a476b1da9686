/*
  The cost (and optionally its gradient) on a grid of the two identified parameters, for contour plots:
  -scan_grid lo1,hi1,n1,lo2,hi2,n2 in the order of -identify. The grid points are dealt out to the ranks
  round robin and gathered by a sum in which every entry has one contribution, so the result does not
  depend on the number of ranks. A point whose forward solve fails gets NaN.
*/
#include "mbsidimpl.h"
#include <petsctime.h>
#include <math.h>

/*@C
  MbsScanOptions - Reads -scan_grid and -scan_gradient; *scan says whether a scan was asked for. Collective.
@*/
PetscErrorCode MbsScanOptions(MbsObjective obj, PetscBool *scan)
{
  PetscReal grid[6] = {0, 0, 0, 0, 0, 0};
  PetscInt  ngrid   = 6;

  PetscFunctionBeginUser;
  PetscOptionsBegin(obj->comm, NULL, "Cost scan", "MbsScan");
  PetscCall(PetscOptionsRealArray("-scan_grid", "Grid lo1,hi1,n1,lo2,hi2,n2 of the two identified parameters (default: no scan)", "MbsScanRun", grid, &ngrid, scan));
  PetscCall(PetscOptionsBool("-scan_gradient", "Also the adjoint gradient at every grid point", "MbsScanRun", obj->scan_gradient, &obj->scan_gradient, NULL));
  PetscOptionsEnd();
  if (!*scan) PetscFunctionReturn(0);
  PetscCheck(ngrid == 6, obj->comm, PETSC_ERR_ARG_SIZ, "-scan_grid needs six values lo1,hi1,n1,lo2,hi2,n2, got %" PetscInt_FMT, ngrid);
  PetscCheck(obj->nid == 2, obj->comm, PETSC_ERR_ARG_WRONG, "-scan_grid scans two parameters; -identify names %" PetscInt_FMT, obj->nid);
  for (PetscInt d = 0; d < 2; d++) {
    obj->scan_lo[d] = grid[3 * d];
    obj->scan_hi[d] = grid[3 * d + 1];
    obj->scan_n[d]  = (PetscInt)grid[3 * d + 2];
    PetscCheck(obj->scan_n[d] >= 2 && obj->scan_n[d] == grid[3 * d + 2] && obj->scan_hi[d] > obj->scan_lo[d], obj->comm, PETSC_ERR_ARG_OUTOFRANGE, "-scan_grid: parameter %s needs lo < hi and an integer n >= 2, got %g,%g,%g",
               obj->model->param_info[obj->id[d]].name, (double)grid[3 * d], (double)grid[3 * d + 1], (double)grid[3 * d + 2]);
  }
  PetscFunctionReturn(0);
}

static PetscReal MbsScanCoordinate_Private(MbsObjective obj, PetscInt d, PetscInt i)
{
  return obj->scan_lo[d] + i * (obj->scan_hi[d] - obj->scan_lo[d]) / (obj->scan_n[d] - 1);
}

/*@C
  MbsScanRun - Evaluates the cost on the grid of -scan_grid. Collective.
@*/
PetscErrorCode MbsScanRun(MbsObjective obj)
{
  PetscInt       npoint = obj->scan_n[0] * obj->scan_n[1], ndone = 0, mine;
  PetscMPIInt    rank, size;
  PetscReal     *x, *J_local, *g_local;
  PetscLogDouble start, last, now;
  PetscLogStage  stage;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(obj->comm, &rank));
  PetscCallMPI(MPI_Comm_size(obj->comm, &size));
  PetscCall(PetscMalloc1(obj->nid, &x));
  PetscCall(MbsObjectiveGetValues(obj, x));
  PetscCall(PetscFree2(obj->scan_J, obj->scan_grad));
  PetscCall(PetscMalloc2(npoint, &obj->scan_J, 2 * npoint, &obj->scan_grad));
  PetscCall(PetscCalloc2(npoint, &J_local, 2 * npoint, &g_local));
  PetscCall(PetscLogStageRegister("Scan", &stage));
  PetscCall(PetscLogStagePush(stage));
  PetscCall(PetscPrintf(obj->comm, "Scanning J on a %" PetscInt_FMT " x %" PetscInt_FMT " grid of %s x %s over %d ranks\n", obj->scan_n[0], obj->scan_n[1], obj->model->param_info[obj->id[0]].name, obj->model->param_info[obj->id[1]].name, size));
  PetscCall(PetscTime(&start));
  last = start;
  mine = obj->nexp > 1 ? npoint : (npoint + size - 1) / size; /* points rank 0 evaluates */
  for (PetscInt point = obj->nexp > 1 ? 0 : rank; point<npoint; point += obj->nexp> 1 ? 1 : size) {
    PetscBool ok;

    x[0] = MbsScanCoordinate_Private(obj, 0, point % obj->scan_n[0]);
    x[1] = MbsScanCoordinate_Private(obj, 1, point / obj->scan_n[0]);
    if (obj->nexp > 1) { /* rank 0 alone keeps the value, so that the gathering sum counts it once */
      PetscReal J, g[2];

      PetscCall(MbsObjectiveEvaluate(obj, x, &J, obj->scan_gradient ? g : NULL, &ok));
      if (rank == 0) {
        J_local[point] = J;
        if (obj->scan_gradient) PetscCall(PetscArraycpy(&g_local[2 * point], g, 2));
      }
    } else PetscCall(MbsObjectiveEvaluateLocal(obj, x, &J_local[point], obj->scan_gradient ? &g_local[2 * point] : NULL, &ok));
    if (!ok && (obj->nexp == 1 || rank == 0)) J_local[point] = g_local[2 * point] = g_local[2 * point + 1] = NAN;
    ndone++;
    PetscCall(PetscTime(&now));
    if (rank == 0 && now - last > 10) {
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "  scan: %" PetscInt_FMT " of %" PetscInt_FMT " points on rank 0, %.0f s, remaining ~%.0f s\n", ndone, mine, now - start, (now - start) / ndone * (mine - ndone)));
      last = now;
    }
  }
  PetscCall(MPIU_Allreduce(J_local, obj->scan_J, npoint, MPIU_REAL, MPIU_SUM, obj->comm));
  PetscCall(MPIU_Allreduce(g_local, obj->scan_grad, 2 * npoint, MPIU_REAL, MPIU_SUM, obj->comm));
  PetscCall(PetscLogStagePop());
  PetscCall(PetscTime(&now));
  PetscCall(PetscPrintf(obj->comm, "Scan done: %" PetscInt_FMT " points in %.1f s\n", npoint, now - start));
  PetscCall(PetscFree2(J_local, g_local));
  PetscCall(PetscFree(x));
  PetscFunctionReturn(0);
}

/*@C
  MbsScanWrite - /scan/{x, y, J[, gradient]} when a scan was run. Not collective.
@*/
PetscErrorCode MbsScanWrite(MbsObjective obj, MbsH5Writer *writer)
{
  PetscInt   dims[3] = {obj->scan_n[1], obj->scan_n[0], 2};
  PetscReal *axis;

  PetscFunctionBeginUser;
  if (!obj->scan_J) PetscFunctionReturn(0);
  for (PetscInt d = 0; d < 2; d++) {
    const MbsParameterInfo *info = &obj->model->param_info[obj->id[d]];

    PetscCall(PetscMalloc1(obj->scan_n[d], &axis));
    for (PetscInt i = 0; i < obj->scan_n[d]; i++) axis[i] = MbsScanCoordinate_Private(obj, d, i);
    PetscCall(MbsH5WriteReals(writer, d ? "/scan/y" : "/scan/x", 1, &obj->scan_n[d], axis, info->unit));
    PetscCall(MbsH5WriteAttribute(writer, d ? "/scan/y" : "/scan/x", "parameter", info->name));
    PetscCall(PetscFree(axis));
  }
  PetscCall(MbsH5WriteReals(writer, "/scan/J", 2, dims, obj->scan_J, "cost"));
  if (obj->scan_gradient) PetscCall(MbsH5WriteReals(writer, "/scan/gradient", 3, dims, obj->scan_grad, "cost per parameter unit"));
  PetscFunctionReturn(0);
}
