// The standard line items of /v1/edgar/financials, each with the XBRL tags it is read from, in order of
// preference. The item's name is the "tag name" buyers filter by; its XBRL tags are accepted too.

export type ValueKind = "money" | "perShare" | "shares";

export interface LineItem {
  /** The name buyers see and filter by. */
  name: string;
  label: string;
  /** Balance-sheet style values at a date (instant) or flows over a period (duration). */
  period: "instant" | "duration";
  kind: ValueKind;
  /**
   * Flows that add up over time: quarters can be derived from year-to-date and annual values by subtraction.
   * Per-share values and weighted share counts do not add up, so they are never derived.
   */
  additive: boolean;
  /** `taxonomy:Tag`, first preferred; the us-gaap taxonomy is implied when no prefix is given. */
  tags: string[];
}

function flow(name: string, label: string, tags: string[]): LineItem {
  return { name, label, period: "duration", kind: "money", additive: true, tags };
}

function balance(name: string, label: string, tags: string[]): LineItem {
  return { name, label, period: "instant", kind: "money", additive: false, tags };
}

export const LINE_ITEMS: readonly LineItem[] = [
  // Income statement
  flow("revenue", "Revenue", [
    "Revenues",
    "RevenueFromContractWithCustomerExcludingAssessedTax",
    "RevenueFromContractWithCustomerIncludingAssessedTax",
    "SalesRevenueNet",
    "SalesRevenueGoodsNet",
    "SalesRevenueServicesNet",
    "RevenuesNetOfInterestExpense",
    "ifrs-full:Revenue",
  ]),
  flow("costOfRevenue", "Cost of revenue", [
    "CostOfRevenue",
    "CostOfGoodsAndServicesSold",
    "CostOfGoodsSold",
    "CostOfServices",
    "ifrs-full:CostOfSales",
  ]),
  flow("grossProfit", "Gross profit", ["GrossProfit", "ifrs-full:GrossProfit"]),
  flow("researchAndDevelopment", "Research and development expense", [
    "ResearchAndDevelopmentExpense",
    "ResearchAndDevelopmentExpenseExcludingAcquiredInProcessCost",
  ]),
  flow("sellingGeneralAdministrative", "Selling, general and administrative expense", [
    "SellingGeneralAndAdministrativeExpense",
  ]),
  flow("operatingExpenses", "Operating expenses", ["OperatingExpenses"]),
  flow("operatingIncome", "Operating income (loss)", [
    "OperatingIncomeLoss",
    "ifrs-full:ProfitLossFromOperatingActivities",
  ]),
  flow("interestExpense", "Interest expense", [
    "InterestExpense",
    "InterestExpenseNonoperating",
    "InterestExpenseDebt",
  ]),
  flow("pretaxIncome", "Income before income taxes", [
    "IncomeLossFromContinuingOperationsBeforeIncomeTaxesExtraordinaryItemsNoncontrollingInterest",
    "IncomeLossFromContinuingOperationsBeforeIncomeTaxesMinorityInterestAndIncomeLossFromEquityMethodInvestments",
    "ifrs-full:ProfitLossBeforeTax",
  ]),
  flow("incomeTax", "Income tax expense (benefit)", [
    "IncomeTaxExpenseBenefit",
    "ifrs-full:IncomeTaxExpenseContinuingOperations",
  ]),
  flow("netIncome", "Net income (loss) attributable to the parent", [
    "NetIncomeLoss",
    "NetIncomeLossAvailableToCommonStockholdersBasic",
    "ifrs-full:ProfitLossAttributableToOwnersOfParent",
  ]),
  {
    name: "epsBasic",
    label: "Earnings per share, basic",
    period: "duration",
    kind: "perShare",
    additive: false,
    tags: ["EarningsPerShareBasic", "ifrs-full:BasicEarningsLossPerShare"],
  },
  {
    name: "epsDiluted",
    label: "Earnings per share, diluted",
    period: "duration",
    kind: "perShare",
    additive: false,
    tags: [
      "EarningsPerShareDiluted",
      "EarningsPerShareBasicAndDiluted",
      "ifrs-full:DilutedEarningsLossPerShare",
    ],
  },
  {
    name: "weightedSharesBasic",
    label: "Weighted average shares outstanding, basic",
    period: "duration",
    kind: "shares",
    additive: false,
    tags: ["WeightedAverageNumberOfSharesOutstandingBasic"],
  },
  {
    name: "weightedSharesDiluted",
    label: "Weighted average shares outstanding, diluted",
    period: "duration",
    kind: "shares",
    additive: false,
    tags: ["WeightedAverageNumberOfDilutedSharesOutstanding"],
  },
  flow("depreciationAmortization", "Depreciation and amortization", [
    "DepreciationDepletionAndAmortization",
    "DepreciationAndAmortization",
    "DepreciationAmortizationAndAccretionNet",
  ]),
  flow("stockBasedCompensation", "Share-based compensation", [
    "ShareBasedCompensation",
    "AllocatedShareBasedCompensationExpense",
  ]),
  // Cash flow statement
  flow("operatingCashFlow", "Net cash from operating activities", [
    "NetCashProvidedByUsedInOperatingActivities",
    "NetCashProvidedByUsedInOperatingActivitiesContinuingOperations",
    "ifrs-full:CashFlowsFromUsedInOperatingActivities",
  ]),
  flow("capitalExpenditure", "Capital expenditure (payments for property, plant and equipment)", [
    "PaymentsToAcquirePropertyPlantAndEquipment",
    "PaymentsToAcquireProductiveAssets",
    "ifrs-full:PurchaseOfPropertyPlantAndEquipmentClassifiedAsInvestingActivities",
  ]),
  flow("investingCashFlow", "Net cash from investing activities", [
    "NetCashProvidedByUsedInInvestingActivities",
    "NetCashProvidedByUsedInInvestingActivitiesContinuingOperations",
    "ifrs-full:CashFlowsFromUsedInInvestingActivities",
  ]),
  flow("financingCashFlow", "Net cash from financing activities", [
    "NetCashProvidedByUsedInFinancingActivities",
    "NetCashProvidedByUsedInFinancingActivitiesContinuingOperations",
    "ifrs-full:CashFlowsFromUsedInFinancingActivities",
  ]),
  flow("dividendsPaid", "Dividends paid", [
    "PaymentsOfDividends",
    "PaymentsOfDividendsCommonStock",
    "ifrs-full:DividendsPaidClassifiedAsFinancingActivities",
  ]),
  flow("shareRepurchases", "Repurchases of common stock", ["PaymentsForRepurchaseOfCommonStock"]),
  {
    name: "dividendsPerShare",
    label: "Dividends declared per common share",
    period: "duration",
    kind: "perShare",
    additive: false,
    tags: ["CommonStockDividendsPerShareDeclared", "CommonStockDividendsPerShareCashPaid"],
  },
  // Balance sheet
  balance("cash", "Cash and cash equivalents", [
    "CashAndCashEquivalentsAtCarryingValue",
    "CashCashEquivalentsRestrictedCashAndRestrictedCashEquivalents",
    "Cash",
    "ifrs-full:CashAndCashEquivalents",
  ]),
  balance("shortTermInvestments", "Short-term investments and marketable securities", [
    "ShortTermInvestments",
    "MarketableSecuritiesCurrent",
    "AvailableForSaleSecuritiesDebtSecuritiesCurrent",
  ]),
  balance("accountsReceivable", "Accounts receivable, net", [
    "AccountsReceivableNetCurrent",
    "ReceivablesNetCurrent",
    "ifrs-full:TradeAndOtherCurrentReceivables",
  ]),
  balance("inventory", "Inventory, net", ["InventoryNet", "ifrs-full:Inventories"]),
  balance("currentAssets", "Total current assets", ["AssetsCurrent", "ifrs-full:CurrentAssets"]),
  balance("propertyPlantEquipment", "Property, plant and equipment, net", [
    "PropertyPlantAndEquipmentNet",
    "ifrs-full:PropertyPlantAndEquipment",
  ]),
  balance("goodwill", "Goodwill", ["Goodwill", "ifrs-full:Goodwill"]),
  balance("totalAssets", "Total assets", ["Assets", "ifrs-full:Assets"]),
  balance("accountsPayable", "Accounts payable", [
    "AccountsPayableCurrent",
    "ifrs-full:TradeAndOtherCurrentPayables",
  ]),
  balance("currentLiabilities", "Total current liabilities", [
    "LiabilitiesCurrent",
    "ifrs-full:CurrentLiabilities",
  ]),
  balance("shortTermDebt", "Short-term debt and current portion of long-term debt", [
    "DebtCurrent",
    "LongTermDebtCurrent",
    "ShortTermBorrowings",
    "CommercialPaper",
  ]),
  balance("longTermDebt", "Long-term debt, non-current", [
    "LongTermDebtNoncurrent",
    "ifrs-full:NoncurrentPortionOfNoncurrentBorrowings",
  ]),
  balance(
    "totalDebt",
    "Total debt (long-term debt including current maturities where no combined total is reported)",
    [
      "DebtLongtermAndShorttermCombinedAmount",
      "LongTermDebt",
      "DebtInstrumentCarryingAmount",
      "ifrs-full:Borrowings",
    ],
  ),
  balance("totalLiabilities", "Total liabilities", ["Liabilities", "ifrs-full:Liabilities"]),
  balance("stockholdersEquity", "Stockholders' equity attributable to the parent", [
    "StockholdersEquity",
    "StockholdersEquityIncludingPortionAttributableToNoncontrollingInterest",
    "ifrs-full:EquityAttributableToOwnersOfParent",
  ]),
  balance("retainedEarnings", "Retained earnings (accumulated deficit)", [
    "RetainedEarningsAccumulatedDeficit",
    "ifrs-full:RetainedEarnings",
  ]),
  {
    name: "sharesOutstanding",
    label: "Common shares outstanding",
    period: "instant",
    kind: "shares",
    additive: false,
    tags: ["dei:EntityCommonStockSharesOutstanding", "CommonStockSharesOutstanding"],
  },
];

interface XbrlTag {
  taxonomy: string;
  tag: string;
}

export function parseTagRef(ref: string): XbrlTag {
  const colon = ref.indexOf(":");
  return colon < 0
    ? { taxonomy: "us-gaap", tag: ref }
    : { taxonomy: ref.slice(0, colon), tag: ref.slice(colon + 1) };
}

/** Lower-cased item names and XBRL tag names (with or without taxonomy) → the item's name. */
const BY_NAME = new Map<string, string>();
for (const item of LINE_ITEMS) {
  BY_NAME.set(item.name.toLowerCase(), item.name);
  for (const ref of item.tags) {
    const { taxonomy, tag } = parseTagRef(ref);
    if (!BY_NAME.has(tag.toLowerCase())) BY_NAME.set(tag.toLowerCase(), item.name);
    BY_NAME.set(`${taxonomy}:${tag}`.toLowerCase(), item.name);
  }
}

/** The line item a name refers to: the item's own name or one of its XBRL tags, any case. */
export function lineItemFor(name: string): string | undefined {
  return BY_NAME.get(name.trim().toLowerCase());
}

export const LINE_ITEM_NAMES: readonly string[] = LINE_ITEMS.map((item) => item.name);
