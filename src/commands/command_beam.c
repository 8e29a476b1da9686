/*
  mbsid beam: the reduced finite-element model of a straight beam, as the HDF5 file of a flexible body of a model file
  (doc/model-files.md, "The file of a flexible body"), so that a model with a flexible beam needs nothing outside mbsid.

  The beam lies along the body x axis, centred on the body origin (its centre of mass), with a solid rectangular
  section (width along y, height along z). 3D Euler-Bernoulli elements: axial bar and St-Venant torsion (linear), two
  bending planes (cubic Hermite), consistent mass of the axis line rho A and the torsional inertia rho I_p, and no
  rotary inertia of the section in bending (../shared/models/beam_bushings.md, section 3). Nodal coordinates
  (u, v, w, phi, theta_y, theta_z), with theta_z = v' and theta_y = -w'.

  Reduction: free-interface component modes, the first -beam_modes elastic free-free modes of K psi = omega^2 M psi,
  mass-normalised (psi^T M psi = 1), the six rigid-body modes left out (the body frame carries the rigid motion). With
  -beam_attachment_nodes, also the residual attachment modes of unit forces along x, y, z at those nodes (the static
  deflection of the modes left out, sum_m phi_m phi_m^T f / omega_m^2, orthogonal to the rigid and the kept modes),
  and the whole basis turned into its Ritz modes: again mass-normalised with a diagonal modal stiffness.
*/
#include "commands/commandimpl.h"
#include <petscblaslapack.h>

typedef struct {
  PetscReal length, width, height, E, G, rho, Jt;
  PetscInt  nelement, nmode, nattach, attach[16];
} MbsBeam;

#define NDOF 6 /* per node: u, v, w, phi, theta_y, theta_z */

/* St-Venant torsion constant of the solid rectangle, the exact series summed to convergence */
static PetscReal TorsionConstant(PetscReal width, PetscReal height)
{
  PetscReal a = PetscMax(width, height), c = PetscMin(width, height), sum = 0;

  for (PetscInt n = 1; n < 2001; n += 2) sum += PetscTanhReal(n * PETSC_PI * a / (2 * c)) / PetscPowReal((PetscReal)n, 5);
  return a * c * c * c / 3 * (1 - 192 / PetscPowReal(PETSC_PI, 5) * (c / a) * sum);
}

/* Adds the element k e(i, j) onto the global (ndof square) matrix at the dofs idx */
static void Scatter(PetscInt ndof, PetscReal A[], PetscInt n, const PetscInt idx[], const PetscReal sign[], const PetscReal *e, PetscReal scale)
{
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt j = 0; j < n; j++) A[idx[i] + idx[j] * ndof] += scale * sign[i] * sign[j] * e[i * n + j];
}

/* K and M of the free beam (column-major, ndof square) */
static void Assemble(const MbsBeam *beam, PetscInt ndof, PetscReal K[], PetscReal M[])
{
  PetscReal       l = beam->length / beam->nelement, A = beam->width * beam->height, Iy = beam->width * PetscPowReal(beam->height, 3) / 12, Iz = beam->height * PetscPowReal(beam->width, 3) / 12;
  const PetscReal bar[4] = {1, -1, -1, 1}, barm[4] = {2, 1, 1, 2};
  const PetscReal bend[16]  = {12, 6 * l, -12, 6 * l, 6 * l, 4 * l * l, -6 * l, 2 * l * l, -12, -6 * l, 12, -6 * l, 6 * l, 2 * l * l, -6 * l, 4 * l * l};
  const PetscReal bendm[16] = {156, 22 * l, 54, -13 * l, 22 * l, 4 * l * l, 13 * l, -3 * l * l, 54, 13 * l, 156, -22 * l, -13 * l, -3 * l * l, -22 * l, 4 * l * l};
  const PetscReal plus[4] = {1, 1, 1, 1}, minus[4] = {1, -1, 1, -1}; /* (w, -theta_y) is (w, w') */

  for (PetscInt e = 0; e < beam->nelement; e++) {
    PetscInt a = NDOF * e, b = NDOF * (e + 1), axial[2] = {a, b}, torsion[2] = {a + 3, b + 3}, y[4] = {a + 1, a + 5, b + 1, b + 5}, z[4] = {a + 2, a + 4, b + 2, b + 4};

    Scatter(ndof, K, 2, axial, plus, bar, beam->E * A / l);
    Scatter(ndof, K, 2, torsion, plus, bar, beam->G * beam->Jt / l);
    Scatter(ndof, K, 4, y, plus, bend, beam->E * Iz / (l * l * l));
    Scatter(ndof, K, 4, z, minus, bend, beam->E * Iy / (l * l * l));
    Scatter(ndof, M, 2, axial, plus, barm, beam->rho * A * l / 6);
    Scatter(ndof, M, 2, torsion, plus, barm, beam->rho * (Iy + Iz) * l / 6);
    Scatter(ndof, M, 4, y, plus, bendm, beam->rho * A * l / 420);
    Scatter(ndof, M, 4, z, minus, bendm, beam->rho * A * l / 420);
  }
}

/*
  The inertia of the flexible body in its slots (doc/model-files.md, "Flexible bodies"): a material point moves with r + sum_k X_k e_k +
  sum_jk f_jk(X) gamma_jk, so the mass matrix is S (x) I3 with S_st = int c_s c_t dm, c = (1, X_1, X_2, X_3, f_11, f_12,
  f_13, f_21, ...). The section is the axis line rho A with the torsional inertia rho I_p split equally about y and z
  (a ring: int y^2 = int z^2 = rho I_p / 2 per length), and the mode fields (u, v - z phi, w + y phi) have no axial part
  from the section's rotation; S_11 then drops rho I_p L / 2, so that no rigid rotation has rotary inertia in bending
  either. By 4-point Gauss quadrature (exact: cubic times cubic).
*/
static void SlotMass(const MbsBeam *beam, const PetscReal psi[], PetscInt n, PetscInt ndof, PetscReal S[])
{
  const PetscReal g[4] = {0.06943184420297371, 0.33000947820757187, 0.6699905217924281, 0.9305681557970262}, wg[4] = {0.17392742256872692, 0.3260725774312731, 0.3260725774312731, 0.17392742256872692};
  PetscInt        ns = 4 + 3 * n;
  PetscReal       l = beam->length / beam->nelement, A = beam->width * beam->height, Jr = beam->rho * beam->width * beam->height * (beam->width * beam->width + beam->height * beam->height) / 24;
  PetscReal       a[4 + 3 * 64], b[4 + 3 * 64], d[4 + 3 * 64];

  for (PetscInt e = 0; e < beam->nelement; e++)
    for (PetscInt q = 0; q < 4; q++) {
      PetscReal xi = g[q], x = -beam->length / 2 + (e + xi) * l, H[4] = {1 - 3 * xi * xi + 2 * xi * xi * xi, l * (xi - 2 * xi * xi + xi * xi * xi), 3 * xi * xi - 2 * xi * xi * xi, l * (xi * xi * xi - xi * xi)}, N[2] = {1 - xi, xi};

      for (PetscInt s = 0; s < ns; s++) a[s] = b[s] = d[s] = 0;
      a[0] = 1;
      a[1] = x;
      b[2] = 1;
      d[3] = 1;
      for (PetscInt j = 0; j < n; j++) {
        const PetscReal *p = psi + j * ndof + NDOF * e; /* mode j, first dof of the element */
        PetscReal        u = N[0] * p[0] + N[1] * p[NDOF], phi = N[0] * p[3] + N[1] * p[NDOF + 3];
        PetscReal        v = H[0] * p[1] + H[1] * p[5] + H[2] * p[NDOF + 1] + H[3] * p[NDOF + 5];
        PetscReal        w = H[0] * p[2] - H[1] * p[4] + H[2] * p[NDOF + 2] - H[3] * p[NDOF + 4];

        a[4 + 3 * j]     = u;
        a[4 + 3 * j + 1] = v;
        d[4 + 3 * j + 1] = -phi;
        a[4 + 3 * j + 2] = w;
        b[4 + 3 * j + 2] = phi;
      }
      for (PetscInt s = 0; s < ns; s++)
        for (PetscInt t = 0; t < ns; t++) S[s * ns + t] += wg[q] * l * (beam->rho * A * a[s] * a[t] + Jr * (b[s] * b[t] + d[s] * d[t]));
    }
  S[ns + 1] -= Jr * beam->length;
}

/*
  The basis of the file: the kept modes, and the attachment modes in the Ritz modes of the span of both, psi (ndof x nb)
  and omega^2 (nb). Phi: all the beam's modes (mass-normalised, by column), omega2 theirs.
*/
static PetscErrorCode RitzModes(const MbsBeam *beam, PetscInt ndof, const PetscReal Phi[], const PetscReal omega2[], PetscInt nb, PetscReal psi[], PetscReal w2[])
{
  PetscInt     n = beam->nmode;
  PetscReal   *C, *Kr, *Mr, *CV, *work;
  PetscBLASInt bnb, lwork, info, one = 1;

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc5(ndof * nb, &C, nb * nb, &Kr, nb * nb, &Mr, ndof * nb, &CV, 8 * nb, &work));
  for (PetscInt j = 0; j < n; j++) C[6 + j + j * ndof] = 1;
  for (PetscInt a = 0; a < beam->nattach; a++)
    for (PetscInt k = 0; k < 3; k++)
      for (PetscInt m = 6 + n; m < ndof; m++) C[m + (n + 3 * a + k) * ndof] = Phi[m * ndof + NDOF * beam->attach[a] + k] / omega2[m];
  for (PetscInt i = 0; i < nb; i++)
    for (PetscInt j = 0; j < nb; j++)
      for (PetscInt m = 6; m < ndof; m++) {
        Mr[i + j * nb] += C[m + i * ndof] * C[m + j * ndof];
        Kr[i + j * nb] += C[m + i * ndof] * omega2[m] * C[m + j * ndof];
      }
  PetscCall(PetscBLASIntCast(nb, &bnb));
  PetscCall(PetscBLASIntCast(8 * nb, &lwork));
  LAPACKsygv_(&one, "V", "U", &bnb, Kr, &bnb, Mr, &bnb, w2, work, &lwork, &info);
  if (info == 0) {
    for (PetscInt m = 0; m < ndof; m++) /* C V, then Phi C V */
      for (PetscInt j = 0; j < nb; j++)
        for (PetscInt i = 0; i < nb; i++) CV[m + j * ndof] += C[m + i * ndof] * Kr[i + j * nb];
    for (PetscInt j = 0; j < nb; j++)
      for (PetscInt m = 6; m < ndof; m++)
        for (PetscInt d = 0; d < ndof; d++) psi[d + j * ndof] += Phi[d + m * ndof] * CV[m + j * ndof];
  }
  PetscCall(PetscFree5(C, Kr, Mr, CV, work));
  PetscCheck(info == 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "LAPACK sygv failed with info %d on the Ritz problem of the modes and the attachment modes (two attachment nodes that repeat each other?)", (int)info);
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsBeamWrite_Private(const char output[], const MbsBeam *beam, PetscReal K[], PetscReal M[], PetscReal omega2[], PetscReal work[], PetscInt lwork, MPI_Comm comm)
{
  PetscInt     nnode = beam->nelement + 1, ndof = NDOF * nnode, n = beam->nmode + 3 * beam->nattach, ns = 4 + 3 * n, dims[2];
  PetscBLASInt bn, blwork, info, one                                                                    = 1;
  PetscReal   *psi, *w2, *S, *x, *shape, *rotation, *frequency, *stiffness;
  MbsH5Writer  writer;
  char         text[256];

  PetscFunctionBeginUser;
  Assemble(beam, ndof, K, M);
  PetscCall(PetscBLASIntCast(ndof, &bn));
  PetscCall(PetscBLASIntCast(lwork, &blwork));
  LAPACKsygv_(&one, "V", "U", &bn, K, &bn, M, &bn, omega2, work, &blwork, &info);
  PetscCheck(info == 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "LAPACK sygv failed with info %d on the beam's eigenproblem", (int)info);
  /* the six rigid modes have omega^2 of rounding, far below the first elastic one */
  PetscCheck(PetscAbsReal(omega2[5]) < 1e-6 * omega2[6], PETSC_COMM_SELF, PETSC_ERR_PLIB, "The free beam does not have exactly six rigid-body modes (omega^2: %g, %g)", (double)omega2[5], (double)omega2[6]);
  PetscCall(PetscCalloc6(ns * ns, &S, 3 * nnode, &x, 3 * nnode * n, &shape, 3 * nnode * n, &rotation, n, &frequency, n * n, &stiffness));
  PetscCall(PetscCalloc2(ndof * n, &psi, n, &w2));
  if (beam->nattach) PetscCall(RitzModes(beam, ndof, K, omega2, n, psi, w2));
  else {
    PetscCall(PetscArraycpy(psi, K + 6 * ndof, ndof * n));
    PetscCall(PetscArraycpy(w2, omega2 + 6, n));
  }
  SlotMass(beam, psi, n, ndof, S);
  for (PetscInt i = 0; i < nnode; i++) {
    x[3 * i] = -beam->length / 2 + i * beam->length / beam->nelement;
    for (PetscInt k = 0; k < 3; k++)
      for (PetscInt j = 0; j < n; j++) {
        shape[(3 * i + k) * n + j]    = psi[j * ndof + NDOF * i + k];
        rotation[(3 * i + k) * n + j] = psi[j * ndof + NDOF * i + 3 + k];
      }
  }
  for (PetscInt j = 0; j < n; j++) {
    frequency[j]         = PetscSqrtReal(w2[j]) / (2 * PETSC_PI);
    stiffness[j * n + j] = w2[j];
  }
  PetscCall(MbsH5WriterOpen(output, &writer));
  PetscCall(MbsH5WriteAttribute(&writer, "/", "format", "mbsid flexible body 1"));
  PetscCall(MbsH5WriteAttribute(&writer, "/", "reduction", beam->nattach ? "free-interface+attachment" : "free-interface"));
  PetscCall(PetscSNPrintf(text, sizeof(text), "straight beam along x, L = %g m, section %g x %g m (y x z), E = %g Pa, G = %g Pa, rho = %g kg/m^3, J_t = %g m^4, %" PetscInt_FMT " Euler-Bernoulli elements, the first %" PetscInt_FMT " free-free elastic modes and the attachment modes of %" PetscInt_FMT " nodes (Ritz)",
                          (double)beam->length, (double)beam->width, (double)beam->height, (double)beam->E, (double)beam->G, (double)beam->rho, (double)beam->Jt, beam->nelement, beam->nmode, beam->nattach));
  PetscCall(MbsH5WriteAttribute(&writer, "/", "description", text));
  dims[0] = nnode;
  dims[1] = 3;
  PetscCall(MbsH5WriteReals(&writer, "/nodes/coordinates", 2, dims, x, "m"));
  dims[0] = 3 * nnode;
  dims[1] = n;
  PetscCall(MbsH5WriteReals(&writer, "/modes/translation", 2, dims, shape, "m"));
  PetscCall(MbsH5WriteReals(&writer, "/modes/rotation", 2, dims, rotation, "rad"));
  PetscCall(MbsH5WriteReals(&writer, "/modes/frequencies", 1, &n, frequency, "Hz"));
  dims[0] = dims[1] = n;
  PetscCall(MbsH5WriteReals(&writer, "/modes/stiffness", 2, dims, stiffness, "1/s^2"));
  dims[0] = dims[1] = ns;
  PetscCall(MbsH5WriteReals(&writer, "/inertia/slots", 2, dims, S, "kg, kg m, kg m^2 (see doc)"));
  PetscCall(MbsH5WriteProvenance(&writer, comm));
  PetscCall(MbsH5WriterClose(&writer));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "Beam: %" PetscInt_FMT " elements, mass %.6g kg, first elastic modes [Hz]:", beam->nelement, (double)S[0]));
  for (PetscInt j = 0; j < n; j++) PetscCall(PetscPrintf(PETSC_COMM_SELF, " %.6f", (double)frequency[j]));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n"));
  PetscCall(PetscFree6(S, x, shape, rotation, frequency, stiffness));
  PetscCall(PetscFree2(psi, w2));
  PetscFunctionReturn(0);
}

PetscErrorCode MbsCommandBeam(MPI_Comm comm)
{
  MbsBeam     beam                       = {1.2, 0.040, 0.010, 210e9, 81e9, 7850, 0, 24, 12, 0, {0}};
  char        output[PETSC_MAX_PATH_LEN] = "beam.h5";
  PetscBool   help;
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  MbsOptionsBegin(comm, NULL, "mbsid beam: a straight beam's reduced finite-element model, the file of a flexible body", "beam");
  PetscCall(MbsOptionsOutputFile(PetscOptionsObject, "-o", "Flexible-body file (HDF5)", output, sizeof(output)));
  PetscCall(PetscOptionsReal("-beam_length", "Length L along the body x axis [m]", "", beam.length, &beam.length, NULL));
  PetscCall(PetscOptionsReal("-beam_width", "Section width along y [m]", "", beam.width, &beam.width, NULL));
  PetscCall(PetscOptionsReal("-beam_height", "Section height along z [m]", "", beam.height, &beam.height, NULL));
  PetscCall(PetscOptionsReal("-beam_youngs_modulus", "Young's modulus E [Pa]", "", beam.E, &beam.E, NULL));
  PetscCall(PetscOptionsReal("-beam_shear_modulus", "Shear modulus G [Pa]", "", beam.G, &beam.G, NULL));
  PetscCall(PetscOptionsReal("-beam_density", "Density rho [kg/m^3]", "", beam.rho, &beam.rho, NULL));
  PetscCall(PetscOptionsReal("-beam_torsion_constant", "St-Venant torsion constant J_t [m^4] (0: the exact series of the rectangle)", "", beam.Jt, &beam.Jt, NULL));
  PetscCall(PetscOptionsInt("-beam_elements", "Number of Euler-Bernoulli elements", "", beam.nelement, &beam.nelement, NULL));
  PetscCall(PetscOptionsInt("-beam_modes", "Number of elastic free-free modes kept", "", beam.nmode, &beam.nmode, NULL));
  beam.nattach = 16;
  PetscCall(MbsOptionsIntArray(PetscOptionsObject, "-beam_attachment_nodes", "Nodes (from 0) whose attachment modes of unit forces along x, y, z join the basis", "", 0, beam.attach, &beam.nattach, NULL));
  MbsOptionsEnd();
  PetscCall(PetscOptionsHasHelp(NULL, &help));
  if (help) PetscFunctionReturn(0);
  PetscCall(MbsOptionsCheckUnused(comm, PETSC_FALSE));
  PetscCheck(beam.length > 0 && beam.width > 0 && beam.height > 0 && beam.E > 0 && beam.G > 0 && beam.rho > 0 && beam.Jt >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-beam_length, -beam_width, -beam_height, -beam_youngs_modulus, -beam_shear_modulus and -beam_density must be positive, -beam_torsion_constant not negative");
  PetscCheck(beam.nelement >= 2 && beam.nelement <= 1000, comm, PETSC_ERR_ARG_OUTOFRANGE, "-beam_elements must be in [2, 1000], got %" PetscInt_FMT, beam.nelement);
  PetscCheck(beam.nmode >= 1 && beam.nmode + 3 * beam.nattach <= 64 && beam.nmode + 3 * beam.nattach <= NDOF * (beam.nelement + 1) - 6, comm, PETSC_ERR_ARG_OUTOFRANGE, "-beam_modes plus 3 per attachment node must be in [1, 64] and at most the %" PetscInt_FMT " elastic modes of %" PetscInt_FMT " elements, got %" PetscInt_FMT " + 3 x %" PetscInt_FMT,
             NDOF * (beam.nelement + 1) - 6, beam.nelement, beam.nmode, beam.nattach);
  for (PetscInt a = 0; a < beam.nattach; a++)
    PetscCheck(beam.attach[a] >= 0 && beam.attach[a] <= beam.nelement, comm, PETSC_ERR_ARG_OUTOFRANGE, "-beam_attachment_nodes: node %" PetscInt_FMT " is none of the nodes 0 to %" PetscInt_FMT, beam.attach[a], beam.nelement);
  if (beam.Jt == 0) beam.Jt = TorsionConstant(beam.width, beam.height);
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    PetscInt   ndof = NDOF * (beam.nelement + 1), lwork = 8 * ndof;
    PetscReal *K, *M, *omega2, *work;

    PetscCall(PetscCalloc4(ndof * ndof, &K, ndof * ndof, &M, ndof, &omega2, lwork, &work));
    MbsCallCleanup(MbsBeamWrite_Private(output, &beam, K, M, omega2, work, lwork, comm), PetscFree4(K, M, omega2, work));
  }
  PetscCallMPI(MPI_Barrier(comm));
  PetscCall(PetscPrintf(comm, "Wrote %s\n", output));
  PetscFunctionReturn(0);
}
