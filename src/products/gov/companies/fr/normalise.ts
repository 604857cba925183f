// A legal unit of the Recherche d'entreprises API as served: the common company fields (legal form as the
// INSEE catégorie juridique code) and the French extras. Sole traders (catégorie 1000, or flagged as
// entrepreneur individuel) are persons and are left out.
import { z } from "zod";
import { type CompanyCommonBody, isoDate, text } from "../answers.ts";

interface FrSiege {
  siret?: string | null;
  adresse?: string | null;
  adresse_complete?: string | null;
  code_postal?: string | null;
  libelle_commune?: string | null;
}

export interface FrResult {
  siren?: string;
  nom_complet?: string | null;
  nom_raison_sociale?: string | null;
  sigle?: string | null;
  nature_juridique?: string | null;
  etat_administratif?: string | null;
  activite_principale?: string | null;
  categorie_entreprise?: string | null;
  tranche_effectif_salarie?: string | null;
  date_creation?: string | null;
  date_fermeture?: string | null;
  date_mise_a_jour?: string | null;
  nombre_etablissements?: number | null;
  nombre_etablissements_ouverts?: number | null;
  is_entrepreneur_individuel?: boolean;
  complements?: { est_entrepreneur_individuel?: boolean } | null;
  siege?: FrSiege | null;
}

export const FrExtrasShape = {
  acronym: z.string().nullable().describe("FR: sigle"),
  headOfficeSiret: z.string().nullable().describe("FR: SIRET of the head office (siège)"),
  activity: z.string().nullable().describe("FR: main activity, NAF/APE code (e.g. 62.01Z)"),
  category: z.string().nullable().describe("FR: company size category (PME, ETI, GE)"),
  headcountBand: z.string().nullable().describe("FR: INSEE employee band code (tranche d'effectif salarié)"),
  closed: z.string().nullable().describe("FR: date the legal unit ceased (date de fermeture)"),
  updated: z.string().nullable().describe("FR: when the register last updated the unit"),
  establishments: z.number().int().nullable().describe("FR: establishments, all"),
  openEstablishments: z.number().int().nullable().describe("FR: establishments still open"),
};

export type FrCompany = CompanyCommonBody & z.infer<z.ZodObject<typeof FrExtrasShape>>;

/** Catégorie juridique 1000 is "entrepreneur individuel": a person, not a legal entity. */
export function isLegalEntity(result: FrResult): boolean {
  if (result.nature_juridique === "1000") return false;
  if (result.is_entrepreneur_individuel === true) return false;
  if (result.complements?.est_entrepreneur_individuel === true) return false;
  return typeof result.siren === "string";
}

export function normaliseFrResult(result: FrResult): FrCompany {
  const siren = result.siren as string;
  const state = text(result.etat_administratif);
  const siege = result.siege ?? null;
  return {
    id: siren,
    name: text(result.nom_raison_sociale) ?? text(result.nom_complet) ?? siren,
    legalForm: text(result.nature_juridique),
    status: state,
    active: state === "A" ? true : state === "C" || state === "F" ? false : null,
    address: text(siege?.adresse) ?? text(siege?.adresse_complete),
    created: isoDate(result.date_creation),
    sourceUrl: `https://annuaire-entreprises.data.gouv.fr/entreprise/${siren}`,
    acronym: text(result.sigle),
    headOfficeSiret: text(siege?.siret),
    activity: text(result.activite_principale),
    category: text(result.categorie_entreprise),
    headcountBand: text(result.tranche_effectif_salarie),
    closed: isoDate(result.date_fermeture),
    updated: text(result.date_mise_a_jour),
    establishments: result.nombre_etablissements ?? null,
    openEstablishments: result.nombre_etablissements_ouverts ?? null,
  };
}
