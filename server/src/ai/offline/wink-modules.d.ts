// wink's classifier and utilities ship without types; these are the parts the assistant uses.
declare module 'wink-naive-bayes-text-classifier' {
  interface NaiveBayesClassifier {
    definePrepTasks(tasks: ((input: string) => string[])[]): number
    defineConfig(config: { considerOnlyPresence?: boolean; smoothingFactor?: number }): boolean
    learn(input: string, label: string): boolean
    consolidate(): boolean
    predict(input: string): string
    computeOdds(input: string): [string, number][]
  }
  export default function naiveBayesTextClassifier(): NaiveBayesClassifier
}

declare module 'wink-nlp-utils' {
  const utils: {
    string: { lowerCase(s: string): string; tokenize0(s: string): string[] }
    tokens: { stem(tokens: string[]): string[] }
  }
  export default utils
}
