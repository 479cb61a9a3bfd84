// The root layout Next.js requires.
export default function RootLayout({ children }) {
  return (<html><body>{children}</body></html>);
}
