/** @type {import('tailwindcss').Config} */
module.exports = {
  content: ["./web/**/*.templ", "./web/**/*.go", "./handlers/**/*.go"],
  theme: {
    extend: {},
  },
  plugins: [],
};
