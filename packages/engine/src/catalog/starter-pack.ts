/** The languages the starter pack is written in; any other data language falls back to English. */
export const STARTER_PACK_LANGUAGES = ['en', 'de', 'fr', 'es'] as const
export type StarterPackLanguage = (typeof STARTER_PACK_LANGUAGES)[number]

/** One name per starter-pack language. */
type Names = Record<StarterPackLanguage, string>

/** A category of the starter pack: a stable key (ids derive from it) and its names. */
export interface StarterCategory {
  key: string
  names: Names
}

/** A group of the starter pack with its categories, in display order. */
export interface StarterGroup {
  key: string
  names: Names
  isIncome: boolean
  categories: readonly StarterCategory[]
}

function category(key: string, en: string, de: string, fr: string, es: string): StarterCategory {
  return { key, names: { en, de, fr, es } }
}

/**
 * A YNAB-style starter set: fixed bills, everyday spending, irregular "true expenses", quality of
 * life, savings goals, and an income group (is_income) that budget math reads money arriving from.
 * Keys never change once published: the ids of seeded rows derive from them.
 */
export const STARTER_PACK: readonly StarterGroup[] = [
  {
    key: 'bills',
    names: { en: 'Bills', de: 'Fixkosten', fr: 'Factures', es: 'Facturas' },
    isIncome: false,
    categories: [
      category('rent', 'Rent or Mortgage', 'Miete oder Kredit', 'Loyer ou crédit', 'Alquiler o hipoteca'),
      category('utilities', 'Utilities', 'Nebenkosten', 'Énergie et eau', 'Suministros'),
      category(
        'phone',
        'Phone and Internet',
        'Telefon und Internet',
        'Téléphone et Internet',
        'Teléfono e Internet',
      ),
      category('insurance', 'Insurance', 'Versicherungen', 'Assurances', 'Seguros'),
      category('subscriptions', 'Subscriptions', 'Abonnements', 'Abonnements', 'Suscripciones'),
    ],
  },
  {
    key: 'everyday',
    names: { en: 'Everyday', de: 'Alltag', fr: 'Quotidien', es: 'Día a día' },
    isIncome: false,
    categories: [
      category('groceries', 'Groceries', 'Lebensmittel', 'Courses', 'Supermercado'),
      category('dining', 'Dining Out', 'Restaurants', 'Restaurants', 'Restaurantes'),
      category('transport', 'Transportation', 'Mobilität', 'Transports', 'Transporte'),
      category('household', 'Household Goods', 'Haushalt', 'Maison', 'Hogar'),
      category('personal-care', 'Personal Care', 'Körperpflege', 'Soins personnels', 'Cuidado personal'),
    ],
  },
  {
    key: 'true-expenses',
    names: {
      en: 'True Expenses',
      de: 'Unregelmäßige Ausgaben',
      fr: 'Dépenses irrégulières',
      es: 'Gastos irregulares',
    },
    isIncome: false,
    categories: [
      category('medical', 'Medical', 'Gesundheit', 'Santé', 'Salud'),
      category(
        'car-maintenance',
        'Car Maintenance',
        'Autowartung',
        'Entretien voiture',
        'Mantenimiento del coche',
      ),
      category(
        'home-maintenance',
        'Home Maintenance',
        'Instandhaltung Wohnung',
        'Entretien logement',
        'Mantenimiento del hogar',
      ),
      category('clothing', 'Clothing', 'Kleidung', 'Vêtements', 'Ropa'),
      category('gifts', 'Gifts', 'Geschenke', 'Cadeaux', 'Regalos'),
    ],
  },
  {
    key: 'quality-of-life',
    names: { en: 'Quality of Life', de: 'Freizeit', fr: 'Loisirs', es: 'Ocio' },
    isIncome: false,
    categories: [
      category('entertainment', 'Entertainment', 'Unterhaltung', 'Sorties et culture', 'Entretenimiento'),
      category('hobbies', 'Hobbies', 'Hobbys', 'Passe-temps', 'Aficiones'),
      category('vacation', 'Vacation', 'Urlaub', 'Vacances', 'Vacaciones'),
      category('fitness', 'Fitness', 'Sport', 'Sport', 'Deporte'),
    ],
  },
  {
    key: 'savings',
    names: { en: 'Savings Goals', de: 'Sparziele', fr: 'Épargne', es: 'Ahorro' },
    isIncome: false,
    categories: [
      category('emergency-fund', 'Emergency Fund', 'Notgroschen', "Fonds d'urgence", 'Fondo de emergencia'),
      category('big-purchases', 'Big Purchases', 'Größere Anschaffungen', 'Gros achats', 'Compras grandes'),
    ],
  },
  {
    key: 'income',
    names: { en: 'Income', de: 'Einnahmen', fr: 'Revenus', es: 'Ingresos' },
    isIncome: true,
    categories: [
      category('salary', 'Salary', 'Gehalt', 'Salaire', 'Salario'),
      category('other-income', 'Other Income', 'Sonstige Einnahmen', 'Autres revenus', 'Otros ingresos'),
    ],
  },
]

/**
 * The pack language for a household's BCP 47 data language: its primary subtag when the pack
 * is written in it (de-CH gives de), else English.
 */
export function starterPackLanguage(dataLanguage: string): StarterPackLanguage {
  const primary = dataLanguage.split('-')[0]?.toLowerCase() ?? ''
  return (STARTER_PACK_LANGUAGES as readonly string[]).includes(primary)
    ? (primary as StarterPackLanguage)
    : 'en'
}
